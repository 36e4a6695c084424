# SPDX-License-Identifier: BSD-3-Clause
"""A small language model under GPU numerics: train natively, evaluate with every matmul emulated.

    python3 python/examples/lm_numerics.py [--steps 400] [--eval-windows 64] [--threads 2]
        [--checkpoint lm.pt] [--table docs/lm-numerics.md] [--png docs/lm-numerics.png]

1. A character-level transformer (4 layers, width 128, 4 heads, context 128)
   is trained natively in float32 on the Python standard library's sources
   (/usr/lib/python3.11/*.py, Debian's libpython3.11-stdlib): every tenth
   file, in sorted order, is held out.
2. The held-out loss (nats per character) and perplexity are evaluated
   natively and then under mmaemu.torch.emulate for each GPU setting below:
   every matrix product of the forward pass (the projections, the attention
   scores and their weighted sums, the MLPs, the output layer) runs on the
   model's unit, everything else natively in float32.
3. The table (markdown) and a picture (PNG) give each setting's loss,
   perplexity, difference from float32 and the share of next-character
   predictions (argmax) that change.

It is the recipe for a user's own model (docs/python.md, "A model under a
GPU's numerics"): train or load it as usual, then evaluate it inside
`with torch.no_grad(), mmaemu.torch.emulate(MODEL, input=POLICY): ...`.
--smoke runs a tiny version (seconds) for the tests.
"""
import argparse
import glob
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import mmaemu
import mmaemu.torch

CORPUS = "/usr/lib/python3.11"

# (label, model, input policy, schedule, scaling): the settings of the table.
SETTINGS = [
    ("V100 fp16", "V100", "fp16", "chain", None),
    ("A100 bf16", "A100", "bf16", "chain", None),
    ("A100 tf32", "A100", "tf32", "chain", None),
    ("H100 e4m3 chain", "H100", "e4m3", "chain", None),
    ("H100 e4m3 promote:128", "H100", "e4m3", "promote:128", None),
    ("H100 e4m3 chain, per-tensor scaled", "H100", "e4m3", "chain", "tensor"),
    ("H100 e4m3 promote:128, per-tensor scaled", "H100", "e4m3", "promote:128", "tensor"),
    ("B200 mxfp8", "B200", "mxfp8", "chain", None),
    ("B200 nvfp4", "B200", "nvfp4", "chain", None),
    ("MI250 fp16", "MI250", "fp16", "chain", None),
    ("MI300X fp8", "MI300X", "fp8", "chain", None),
    ("MI300X fp8, per-tensor scaled", "MI300X", "fp8", "chain", "tensor"),
]


def printable(text):
    """ASCII 32..126, newline and tab are symbols 1..97; anything else is symbol 0."""
    return [(ord(ch) - 30 if 32 <= ord(ch) <= 126 else 1 if ch == "\n" else 2 if ch == "\t" else 0) for ch in text]


VOCAB = 98


def corpus(limit_train, limit_held):
    files = sorted(glob.glob(os.path.join(CORPUS, "*.py")))
    if not files:
        sys.exit(f"no Python sources in {CORPUS} (Debian: libpython3.11-stdlib)")
    train, held = [], []
    for i, path in enumerate(files):
        with open(path, encoding="utf-8", errors="replace") as f:
            (held if i % 10 == 0 else train).append(f.read())
    tr = torch.tensor(printable("".join(train)[:limit_train]), dtype=torch.long)
    he = torch.tensor(printable("".join(held)[:limit_held]), dtype=torch.long)
    return tr, he


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x, mask):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (z.reshape(shape).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // self.heads))  # bmm on the unit
        att = att.masked_fill(mask[:t, :t], float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)  # bmm on the unit
        x = x + self.proj(y)
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class CharLM(nn.Module):
    def __init__(self, width=128, layers=4, heads=4, context=128):
        super().__init__()
        self.context = context
        self.tok, self.pos = nn.Embedding(VOCAB, width), nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln, self.out = nn.LayerNorm(width), nn.Linear(width, VOCAB)
        self.register_buffer("mask", torch.triu(torch.ones(context, context, dtype=torch.bool), 1), persistent=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.out(self.ln(x))


def train(model, data, steps, batch, lr, seed, log_every):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    t = model.context
    start = time.time()
    for step in range(steps):
        ix = torch.randint(0, data.numel() - t - 1, (batch,), generator=gen)
        x = torch.stack([data[i:i + t] for i in ix])
        y = torch.stack([data[i + 1:i + t + 1] for i in ix])
        for g in opt.param_groups:  # warm-up, then cosine decay
            g["lr"] = lr * min(1.0, (step + 1) / 50) * 0.5 * (1 + math.cos(math.pi * step / steps))
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:5d}  train loss {loss.item():.3f}  {time.time() - start:6.0f} s", flush=True)


def windows(data, context, count):
    n = min(count, (data.numel() - 1) // (context + 1))
    w = data[:n * (context + 1)].reshape(n, context + 1)
    return w[:, :-1].contiguous(), w[:, 1:].contiguous()


@torch.no_grad()
def evaluate(model, x, y, batch=32):
    """Mean held-out loss (nats per character) and the argmax predictions."""
    total, preds = 0.0, []
    for i in range(0, x.shape[0], batch):
        logits = model(x[i:i + batch])
        total += F.cross_entropy(logits.reshape(-1, VOCAB), y[i:i + batch].reshape(-1), reduction="sum").item()
        preds.append(logits.argmax(-1))
    return total / y.numel(), torch.cat(preds)


def markdown(rows, meta):
    lines = [f"<!-- written by python/examples/lm_numerics.py; {meta} -->",
             "| setting | held-out loss (nats/char) | perplexity | loss − fp32 | predictions changed | s |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    base = rows[0][1]
    for label, loss, changed, secs in rows:
        delta = "—" if label.startswith("fp32") else f"{loss - base:+.2e}"
        ch = "—" if label.startswith("fp32") else f"{100 * changed:.2f} %"
        lines.append(f"| {label} | {loss:.5f} | {math.exp(loss):.4f} | {delta} | {ch} | {secs:.1f} |")
    return "\n".join(lines) + "\n"


def picture(rows, path, meta):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    base = rows[0][1]
    labels = [r[0] for r in rows[1:]]
    delta = [r[1] - base for r in rows[1:]]
    changed = [100 * r[2] for r in rows[1:]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 0.42 * len(labels) + 1.6), sharey=True)
    y = range(len(labels))
    ax1.barh(y, [abs(d) if d != 0 else 1e-9 for d in delta], color=["C3" if d > 0 else "C0" for d in delta])
    ax1.set_xscale("log")
    ax1.set_yticks(list(y))
    ax1.set_yticklabels(labels)
    ax1.invert_yaxis()
    ax1.set_xlabel("|held-out loss − fp32| (nats/char; red: higher, blue: lower)")
    ax2.barh(y, changed, color="C2")
    ax2.set_xlabel("next-character predictions changed (%)")
    fig.suptitle(f"character-level transformer, held-out loss {base:.4f} nats/char in fp32; every matmul "
                 f"emulated\n({meta})", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--eval-windows", type=int, default=64, help="held-out windows of context + 1 characters")
    p.add_argument("--settings", default="all", help="comma-separated labels of SETTINGS, or all")
    p.add_argument("--checkpoint", help="load the trained model from here if it exists, else save it there")
    p.add_argument("--table", help="write the markdown table here")
    p.add_argument("--png", help="write the picture here")
    p.add_argument("--threads", type=int, default=0, help="torch and mmaemu threads (0: their defaults)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--smoke", action="store_true", help="a tiny model, 20 steps, 4 windows (the tests)")
    args = p.parse_args(argv)
    if args.smoke:
        args.steps, args.width, args.layers, args.context, args.eval_windows = 20, 32, 2, 32, 4
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_data, held = corpus(4_000_000 if not args.smoke else 200_000, 400_000)
    model = CharLM(args.width, args.layers, 4, args.context)
    if args.checkpoint and os.path.exists(args.checkpoint):
        model.load_state_dict(torch.load(args.checkpoint))
        print(f"loaded {args.checkpoint}")
    else:
        t0 = time.time()
        train(model, train_data, args.steps, args.batch, args.lr, args.seed, 0 if args.smoke else 50)
        print(f"trained {sum(p.numel() for p in model.parameters())} parameters, {args.steps} steps, "
              f"{time.time() - t0:.0f} s, on {train_data.numel()} characters")
        if args.checkpoint:
            torch.save(model.state_dict(), args.checkpoint)
    model.eval()
    x, y = windows(held, args.context, args.eval_windows)
    t0 = time.time()
    base, base_pred = evaluate(model, x, y)
    rows = [("fp32 (native)", base, 0.0, time.time() - t0)]
    print(f"{'fp32 (native)':<42} loss {base:.5f}  perplexity {math.exp(base):.4f}", flush=True)
    chosen = SETTINGS if args.settings == "all" else [s for s in SETTINGS if s[0] in args.settings.split(",")]
    for label, gpu, policy, schedule, scaling in chosen:
        t0 = time.time()
        with mmaemu.torch.emulate(gpu, input=policy, schedule=schedule, scaling=scaling,
                                  threads=args.threads) as mode:
            loss, pred = evaluate(model, x, y)
        secs = time.time() - t0
        changed = (pred != base_pred).double().mean().item()
        assert not mode.passed_through, mode.report()
        rows.append((label, loss, changed, secs))
        print(f"{label:<42} loss {loss:.5f}  perplexity {math.exp(loss):.4f}  {loss - base:+.2e}  "
              f"changed {100 * changed:.2f} %  {mode.flops / 1e9:.1f} Gflop {secs:.1f} s", flush=True)
    meta = (f"{args.layers} layers, width {args.width}, context {args.context}, {args.steps} steps, "
            f"{y.numel()} held-out characters, libmmaemu {mmaemu.__version__}, torch {torch.__version__}")
    if args.table:
        with open(args.table, "w") as f:
            f.write(markdown(rows, meta))
    if args.png:
        picture(rows, args.png, meta)
    return rows


if __name__ == "__main__":
    main()
