"""PyTorch models and functions as their users write them, for the bridges' tests: a small
ResNet block with BatchNorm (train and eval), an LSTM language-model step, a GRU, LSTMCell
unrolled, a transformer encoder layer, in-place activations and index assignment, a
straight-through estimator and a custom Function with a wrong backward, a frozen backbone,
no_grad/enable_grad/detach regions, tensor hooks, dropout, GroupNorm, attention.

Each case is ``(name, make)``; ``make()`` gives ``(fn, args, flagged)``: an ``nn.Module`` or a
function giving a scalar loss, its example arguments (float64), and the ops whose rule is not
the derivative on purpose (a wrong backward, a straight-through estimator, a hook that changes
a gradient): PyTorch uses them all the same, and ``check()`` must name them, and only them.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

D = torch.float64


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(seed: int, *shape) -> torch.Tensor:
    return torch.randn(*shape, generator=_gen(seed), dtype=D)


def _module(m: nn.Module, seed: int) -> nn.Module:
    torch.manual_seed(seed)
    for p in m.parameters():
        with torch.no_grad():
            p.copy_(torch.randn(p.shape, generator=_gen(seed + p.numel()), dtype=D) * 0.5)
    return m.to(D)


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock, small."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNetLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = BasicBlock(2)
        self.fc = nn.Linear(2, 3)

    def forward(self, x, labels):
        features = self.block(x).mean(dim=(2, 3))
        return F.cross_entropy(self.fc(features), labels)


class LanguageModelStep(nn.Module):
    """Embedding → LSTM → Linear → next-token cross-entropy."""

    def __init__(self, vocab=7, dim=4, hidden=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, targets):
        out, _ = self.lstm(self.embed(tokens))
        return F.cross_entropy(self.head(out).reshape(-1, 7), targets.reshape(-1))


class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, batch_first=True)

    def forward(self, x):
        out, h = self.gru(x)
        return out.pow(2).mean() + h.sum()


class CellLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(3, 4)

    def forward(self, xs):
        h = c = torch.zeros(xs.shape[1], 4, dtype=xs.dtype)
        for t in range(xs.shape[0]):
            h, c = self.cell(xs[t], (h, c))
        return h.tanh().sum()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x).pow(2).mean()


class InPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.fc(x)
        h.mul_(2.0).add_(x)
        h = self.act(h)
        g = F.leaky_relu_(h * 1.5 - 0.5, 0.1)
        return (g * torch.sigmoid_(h * 0.5)).sum() + h.sum()


class Siamese(nn.Module):
    """One BatchNorm (train mode) applied to two inputs: the second call reads the running
    statistics the first updated."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(inplace=True))

    def forward(self, a, b):
        return (self.net(a) * self.net(b)).sum()


def index_assignment(x, w):
    y = x * w
    y[0] = 3.0
    y[:, 1] *= 2.0
    y[1:, 0] += w[0, 0]
    return y.square().sum()


class STE(torch.autograd.Function):
    """Round in the forward pass, the identity's gradient in the backward pass."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def straight_through(x, w):
    return (STE.apply(x * 3.0) * w).sum()


class WrongSquare(torch.autograd.Function):
    """x² with a wrong backward (forgets the 2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


def wrong_backward(x):
    return WrongSquare.apply(torch.sin(x)).sum()


class Frozen(nn.Module):
    """A frozen backbone and a trained head."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4))
        self.head = nn.Linear(4, 2)
        for p in self.backbone.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.head(self.backbone(x)).pow(2).sum()


def no_grad_block(x, w):
    y = x * w
    with torch.no_grad():
        scale = y.abs().max()
        y2 = y * 2.0
    with torch.no_grad(), torch.enable_grad():
        z = (y * w).sum()
    return (y / scale).sum() + (y2 * w).sum() + z


def detached_target(x, w):
    prediction = torch.tanh(x @ w)
    target = (prediction * 0.9 + 0.1).detach()
    return F.mse_loss(prediction, target) + (x.detach() @ w).sum()


def input_frozen_inside(x, w):
    w.requires_grad_(False)
    return (torch.sin(x) * w).sum()


def zeroing_hook(x, w):
    h = x @ w
    h.register_hook(lambda g: torch.zeros_like(g))
    return h.sum() + (w * w).sum()


def clipping_hook(x, w):
    h = torch.tanh(x @ w)
    h.register_hook(lambda g: g.clamp(-0.05, 0.05))
    return (h * 3.0).square().sum()


class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.5), nn.Linear(6, 1))

    def forward(self, x):
        return self.net(x).sum()


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 3)
        self.bn = nn.BatchNorm1d(4)
        self.gn = nn.GroupNorm(2, 4)
        self.ln = nn.LayerNorm(4)

    def forward(self, x):
        h = F.max_pool1d(F.relu(self.bn(self.conv(x))), 2)
        h = self.gn(h).transpose(1, 2)
        return self.ln(h).pow(3).sum()


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(4, 2, batch_first=True)

    def forward(self, x):
        out, _ = self.attn(x, x, x)
        return out.sum()


def clone_and_view(x):
    y = x.clone()
    v = y.view(-1)
    v[::2] = v[::2] * 3.0
    return (y.exp() * x).sum()


def inference_part(x, w):
    with torch.inference_mode():
        c = x * 2.0
    return (c.clone() * w).sum() + (x * w).sum()


NONE: set[str] = set()


CASES = [
    (
        "resnet block train",
        lambda: (_module(ResNetLoss(), 1), (_randn(1, 2, 2, 4, 4), torch.tensor([0, 2])), NONE),
    ),
    (
        "resnet block eval",
        lambda: (
            _module(ResNetLoss(), 2).eval(),
            (_randn(2, 2, 2, 4, 4), torch.tensor([1, 0])),
            NONE,
        ),
    ),
    (
        "lstm language model",
        lambda: (
            _module(LanguageModelStep(), 3),
            (torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([[2, 3, 4], [5, 6, 0]])),
            NONE,
        ),
    ),
    ("gru", lambda: (_module(GRUModel(), 4), (_randn(4, 2, 3, 3),), NONE)),
    ("lstm cell x5", lambda: (_module(CellLoop(), 5), (_randn(5, 5, 2, 3),), NONE)),
    ("transformer encoder layer", lambda: (_module(Encoder(), 6), (_randn(6, 2, 3, 8),), NONE)),
    ("in-place activations", lambda: (_module(InPlace(), 7), (_randn(7, 3, 4),), NONE)),
    (
        "one BatchNorm on two inputs",
        # the first call's updated running statistics, read by the second, have no
        # gradient in PyTorch (not the derivative, on purpose): check() names that op
        lambda: (
            _module(Siamese(), 30),
            (_randn(30, 5, 3), _randn(31, 5, 3)),
            {"_native_batch_norm_legit_functional"},
        ),
    ),
    ("index assignment", lambda: (index_assignment, (_randn(8, 3, 2), _randn(9, 3, 2)), NONE)),
    (
        "straight-through estimator",
        lambda: (straight_through, (_randn(10, 5), _randn(11, 5)), {"STE"}),
    ),
    (
        "custom Function, wrong backward",
        lambda: (wrong_backward, (_randn(12, 4),), {"WrongSquare"}),
    ),
    ("frozen backbone", lambda: (_module(Frozen(), 13), (_randn(13, 5, 3),), NONE)),
    ("no_grad and enable_grad", lambda: (no_grad_block, (_randn(14, 4), _randn(15, 4)), NONE)),
    ("detach", lambda: (detached_target, (_randn(16, 3, 2), _randn(17, 2, 2)), NONE)),
    (
        "requires_grad_(False) inside",
        lambda: (input_frozen_inside, (_randn(18, 3), _randn(19, 3)), NONE),
    ),
    (
        "hook zeroing a gradient",
        lambda: (zeroing_hook, (_randn(20, 3, 2), _randn(21, 2, 2)), {"hook <lambda>"}),
    ),
    (
        "hook clipping a gradient",
        lambda: (clipping_hook, (_randn(22, 3, 2), _randn(23, 2, 2)), {"hook <lambda>"}),
    ),
    ("dropout in train mode", lambda: (_module(Dropout(), 24), (_randn(24, 5, 4),), NONE)),
    (
        "conv, BatchNorm1d, GroupNorm, LayerNorm",
        lambda: (_module(Norms(), 25), (_randn(25, 3, 2, 8),), NONE),
    ),
    ("multi-head attention", lambda: (_module(Attention(), 26), (_randn(26, 2, 3, 4),), NONE)),
    ("clone and a view written to", lambda: (clone_and_view, (_randn(27, 2, 3),), NONE)),
    ("inference_mode region", lambda: (inference_part, (_randn(28, 3), _randn(29, 3)), NONE)),
]
