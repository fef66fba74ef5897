#!/usr/bin/python3
"""The data and PyTorch's run of examples/train-digits.

Reads scikit-learn's 8x8 handwritten digits (1797 images, the data file
Debian's python3-sklearn ships; sklearn itself is not imported), splits them
into 1440 training and 357 test images (a seeded permutation), makes the
CNN's initial weights and every epoch's batch order, trains the CNN with
PyTorch from those weights in that order, and writes to OUT_DIR:

  digits.safetensors  train_x [1440,1,8,8] (pixels / 16), train_y, test_x,
                      test_y, order [EPOCHS, 1440] (each epoch's shuffle)
  initial.safetensors the CNN's state_dict before training
  pytorch.safetensors PyTorch's run: loss [EPOCHS * STEPS] (every step's
                      mean cross-entropy), accuracy [EPOCHS] (on the test set
                      after each epoch), ms_per_step (eager, one thread,
                      epochs 2 on), final.<param> (the weights after)

The C++ example (main.cpp) trains the same network from the same weights in
the same order and prints both runs side by side. The hyper-parameters are
here and in main.cpp's header, and must agree.

    digits.py OUT_DIR

Run with /usr/bin/python3 (Debian's torch imports only there).
"""
import csv
import gzip
import importlib.util
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "reference"))
import torch  # noqa: E402

import safetensors_io  # noqa: E402

EPOCHS, BATCH, LR, MOMENTUM = 8, 32, 0.05, 0.9
TRAIN = 1440  # 45 batches of 32; the other 357 images are the test set


def digits_file():
    spec = importlib.util.find_spec("sklearn")
    if spec is None:
        sys.exit("digits.py: python3-sklearn is not installed (scripts/bootstrap.sh "
                 "installs it); its data file holds the digits")
    path = os.path.join(os.path.dirname(spec.origin), "datasets", "data",
                        "digits.csv.gz")
    if not os.path.exists(path):
        sys.exit(f"digits.py: {path} is missing")
    return path


def load_digits():
    with gzip.open(digits_file(), "rt") as f:
        rows = [[int(float(v)) for v in row] for row in csv.reader(f) if row]
    data = torch.tensor(rows, dtype=torch.int64)
    images = data[:, :64].float().div(16.0).reshape(-1, 1, 8, 8)
    return images, data[:, 64]


def digits_net():
    """The CNN; main.cpp's DigitsNet is its twin (same names)."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 16x4x4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 32x2x2
        nn.Flatten(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: digits.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    images, labels = load_digits()
    g = torch.Generator().manual_seed(0)
    split = torch.randperm(len(labels), generator=g)
    train_x, train_y = images[split[:TRAIN]], labels[split[:TRAIN]]
    test_x, test_y = images[split[TRAIN:]], labels[split[TRAIN:]]
    order = torch.stack([torch.randperm(TRAIN, generator=g)
                         for _ in range(EPOCHS)])
    torch.manual_seed(1)
    model = digits_net()
    initial = {k: v.clone() for k, v in model.state_dict().items()}

    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses, accuracies, seconds = [], [], 0.0
    for epoch in range(EPOCHS):
        model.train()
        began = time.perf_counter()
        for start in range(0, TRAIN, BATCH):
            batch = order[epoch, start:start + BATCH]
            optimizer.zero_grad()
            loss = loss_fn(model(train_x[batch]), train_y[batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
        if epoch > 0:  # as main.cpp times it
            seconds += time.perf_counter() - began
        model.eval()
        accuracies.append(accuracy(model, test_x, test_y))
        print(f"PyTorch epoch {epoch + 1}: loss {torch.stack(losses[-TRAIN // BATCH:]).mean():.4f}"
              f" test accuracy {100 * accuracies[-1]:.1f}%")

    def write(name, tensors):
        with open(os.path.join(out, name), "wb") as f:
            f.write(safetensors_io.serialize(
                {k: v.contiguous() for k, v in tensors.items()}))
    write("digits.safetensors", dict(train_x=train_x, train_y=train_y,
                                     test_x=test_x, test_y=test_y, order=order))
    write("initial.safetensors", initial)
    run = dict(loss=torch.stack(losses), accuracy=torch.stack(accuracies),
               ms_per_step=torch.tensor(
                   1000 * seconds / ((EPOCHS - 1) * (TRAIN // BATCH)),
                   dtype=torch.float64))
    run.update({"final." + k: v for k, v in model.state_dict().items()})
    write("pytorch.safetensors", run)


if __name__ == "__main__":
    main()
