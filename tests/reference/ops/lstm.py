"""PyTorch goldens for nn's LSTM and GRU layers.

Each case yields (name, fn, inputs) with inputs = (x, [h0, c0,] *state):
the layer's state_dict in PyTorch's order follows the data, and fn loads
it into a torch.nn.LSTM and returns (output, h_n, c_n). The C++ twin
(tests/E2E/OpsLSTMTest.cpp) loads the same state into nn::LSTM. GRU cases
are the same with (x, [h0,] *state) and (output, h_n).
"""
import torch


def _run(layer, states):
    """fn(x, *rest): the first `states` of rest are the initial states (h0
    for a GRU, h0 and c0 for an LSTM; none when 0), the rest the layer's
    state_dict; returns the output, then h_n (and c_n)."""
    keys = list(layer.state_dict().keys())

    def fn(x, *rest):
        layer.load_state_dict(dict(zip(keys, rest[states:])))
        layer.eval()
        hx = None if states == 0 else rest[0] if states == 1 else rest[:states]
        output, h = layer(x, hx)
        return (output,) + (h if isinstance(h, tuple) else (h,))
    return fn


def _state(module):
    return tuple(v.clone() for v in module.state_dict().values())


def _layer_cases(kind, layer_type, configs, state_features):
    """For each (name, kwargs, (seq, batch)) of `configs`: the layer on a
    random input, then with random initial states drawn after it, whose
    features state_features(kwargs) gives (h's first)."""
    for name, kwargs, (seq, batch) in configs:
        layer = layer_type(**kwargs)
        directions = 2 if kwargs.get("bidirectional") else 1
        layers = kwargs.get("num_layers", 1)
        shape = (batch, seq) if kwargs.get("batch_first") else (seq, batch)
        x = torch.randn(*shape, kwargs["input_size"])
        yield f"{kind}_{name}", _run(layer, 0), (x,) + _state(layer)
        states = tuple(torch.randn(layers * directions, batch, features)
                       for features in state_features(kwargs))
        yield f"{kind}_{name}_state", _run(layer, len(states)), \
            (x,) + states + _state(layer)


def _lstm_state_features(kwargs):
    """h has proj_size features when set, c hidden_size."""
    return (kwargs.get("proj_size") or kwargs["hidden_size"],
            kwargs["hidden_size"])


def cases():
    torch.manual_seed(0)
    configs = [
        # name, LSTM kwargs, (seq, batch)
        ("l1", dict(input_size=5, hidden_size=7), (6, 3)),
        ("l1_batch_first", dict(input_size=5, hidden_size=7, batch_first=True), (6, 3)),
        ("l2", dict(input_size=4, hidden_size=6, num_layers=2), (5, 2)),
        ("l2_batch_first", dict(input_size=4, hidden_size=6, num_layers=2,
                                batch_first=True), (5, 2)),
        ("l1_no_bias", dict(input_size=3, hidden_size=5, bias=False), (4, 2)),
        ("l2_bidirectional", dict(input_size=4, hidden_size=5, num_layers=2,
                                  bidirectional=True), (5, 3)),
        ("l1_bidirectional_batch_first", dict(input_size=3, hidden_size=4,
                                              bidirectional=True,
                                              batch_first=True), (7, 2)),
        # Dropout between layers is inactive in eval.
        ("l2_dropout_eval", dict(input_size=4, hidden_size=6, num_layers=2,
                                 dropout=0.5), (3, 2)),
    ]
    yield from _layer_cases("LSTM", torch.nn.LSTM, configs,
                            _lstm_state_features)
    # Unbatched: [seq, feature], states [layers, hidden].
    lstm = torch.nn.LSTM(3, 4, num_layers=2)
    yield "LSTM_unbatched_state", _run(lstm, 2), \
        (torch.randn(5, 3), torch.randn(2, 4), torch.randn(2, 4)) + _state(lstm)
    # proj_size: h (and h0, and the next layer's input) has proj_size
    # features, c keeps hidden_size; own seed so the cases above stay as
    # they were.
    torch.manual_seed(1)
    proj_configs = [
        ("l1_proj", dict(input_size=5, hidden_size=7, proj_size=3), (6, 3)),
        ("l2_bidirectional_proj_batch_first",
         dict(input_size=4, hidden_size=6, num_layers=2, proj_size=2,
              bidirectional=True, batch_first=True), (5, 2)),
    ]
    yield from _layer_cases("LSTM", torch.nn.LSTM, proj_configs,
                            _lstm_state_features)
    # GRU: own seed, so that the cases above stay as they were.
    torch.manual_seed(2)
    gru_configs = [
        ("l1", dict(input_size=5, hidden_size=7), (6, 3)),
        ("l2_batch_first", dict(input_size=4, hidden_size=6, num_layers=2,
                                batch_first=True), (5, 2)),
        ("l1_no_bias", dict(input_size=3, hidden_size=5, bias=False), (4, 2)),
        ("l2_bidirectional", dict(input_size=4, hidden_size=5, num_layers=2,
                                  bidirectional=True), (5, 3)),
    ]
    yield from _layer_cases("GRU", torch.nn.GRU, gru_configs,
                            lambda kwargs: (kwargs["hidden_size"],))
    gru = torch.nn.GRU(3, 4, num_layers=2)
    yield "GRU_unbatched_state", _run(gru, 1), \
        (torch.randn(5, 3), torch.randn(2, 4)) + _state(gru)
