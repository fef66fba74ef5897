"""PyTorch goldens for nn's LSTM and GRU layers.

Each case yields (name, fn, inputs) with inputs = (x, [h0, c0,] *state):
the layer's state_dict in PyTorch's order follows the data, and fn loads
it into a torch.nn.LSTM and returns (output, h_n, c_n). The C++ twin
(tests/E2E/OpsLSTMTest.cpp) loads the same state into nn::LSTM. GRU cases
are the same with (x, [h0,] *state) and (output, h_n).
"""
import torch


def _run(lstm, with_state):
    keys = list(lstm.state_dict().keys())

    def fn(x, *rest):
        state = rest[2:] if with_state else rest
        lstm.load_state_dict(dict(zip(keys, state)))
        lstm.eval()
        hx = (rest[0], rest[1]) if with_state else None
        output, (h, c) = lstm(x, hx)
        return output, h, c
    return fn


def _run_gru(gru, with_state):
    keys = list(gru.state_dict().keys())

    def fn(x, *rest):
        state = rest[1:] if with_state else rest
        gru.load_state_dict(dict(zip(keys, state)))
        gru.eval()
        return gru(x, rest[0] if with_state else None)
    return fn


def _state(module):
    return tuple(v.clone() for v in module.state_dict().values())


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
    for name, kwargs, (seq, batch) in configs:
        lstm = torch.nn.LSTM(**kwargs)
        directions = 2 if kwargs.get("bidirectional") else 1
        layers = kwargs.get("num_layers", 1)
        shape = (batch, seq) if kwargs.get("batch_first") else (seq, batch)
        x = torch.randn(*shape, kwargs["input_size"])
        yield f"LSTM_{name}", _run(lstm, False), (x,) + _state(lstm)
        state_shape = (layers * directions, batch, kwargs["hidden_size"])
        h0, c0 = torch.randn(state_shape), torch.randn(state_shape)
        yield f"LSTM_{name}_state", _run(lstm, True), (x, h0, c0) + _state(lstm)
    # Unbatched: [seq, feature], states [layers, hidden].
    lstm = torch.nn.LSTM(3, 4, num_layers=2)
    yield "LSTM_unbatched_state", _run(lstm, True), \
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
    for name, kwargs, (seq, batch) in proj_configs:
        lstm = torch.nn.LSTM(**kwargs)
        directions = 2 if kwargs.get("bidirectional") else 1
        layers = kwargs.get("num_layers", 1)
        shape = (batch, seq) if kwargs.get("batch_first") else (seq, batch)
        x = torch.randn(*shape, kwargs["input_size"])
        yield f"LSTM_{name}", _run(lstm, False), (x,) + _state(lstm)
        h0 = torch.randn(layers * directions, batch, kwargs["proj_size"])
        c0 = torch.randn(layers * directions, batch, kwargs["hidden_size"])
        yield f"LSTM_{name}_state", _run(lstm, True), (x, h0, c0) + _state(lstm)
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
    for name, kwargs, (seq, batch) in gru_configs:
        gru = torch.nn.GRU(**kwargs)
        directions = 2 if kwargs.get("bidirectional") else 1
        layers = kwargs.get("num_layers", 1)
        shape = (batch, seq) if kwargs.get("batch_first") else (seq, batch)
        x = torch.randn(*shape, kwargs["input_size"])
        yield f"GRU_{name}", _run_gru(gru, False), (x,) + _state(gru)
        h0 = torch.randn(layers * directions, batch, kwargs["hidden_size"])
        yield f"GRU_{name}_state", _run_gru(gru, True), (x, h0) + _state(gru)
    gru = torch.nn.GRU(3, 4, num_layers=2)
    yield "GRU_unbatched_state", _run_gru(gru, True), \
        (torch.randn(5, 3), torch.randn(2, 4)) + _state(gru)
