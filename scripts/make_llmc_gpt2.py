#!/usr/bin/env python3
"""Make a small, randomly initialised GPT-2 for llm.c's fp32 CUDA programs, with PyTorch.

Nothing can be downloaded in the project's sessions (no GPT-2 weights, no tokenizer, no data
set), so this writes everything llm.c's ``train_gpt2_fp32.cu`` / ``test_gpt2_fp32.cu`` read,
in the binary formats llm.c documents (256 int32 header words, then the payload):

* ``gpt2_124M.bin``             model: magic 20240326, version 3 (fp32, padded vocabulary),
                                 maxT, V, L, NH, C, Vp; then the parameters in llm.c's order
                                 (wte padded to Vp rows with zeros, wpe, per-layer tensors
                                 stacked over layers, ln_f)
* ``gpt2_124M_debug_state.bin``  magic 20240327, version 2, B, T; x and y (int32, B*T each),
                                 logits (B, T, V), the mean loss, every parameter gradient
                                 (same order and padding as the model)
* ``train.bin`` / ``val.bin``    tokens: magic 20240520, version 1, token count; uint16 tokens
* ``gpt2_tokenizer.bin``         magic 20240328, version 2, vocabulary size, EOT id; each token
                                 as a length byte and its bytes
* ``reference.json``             configuration, the step-0 loss and the losses of 10 AdamW steps
                                 on the debug batch with test_gpt2_fp32.cu's hyper-parameters

The model is written from the GPT-2 architecture (pre-LayerNorm blocks, causal attention, tanh
GELU, tied embedding and output matrix), not taken from llm.c.  The token streams come from a
sparse random Markov chain so that a few training steps visibly lower the loss.

Usage: python scripts/make_llmc_gpt2.py OUTDIR [--layers 2 --channels 128 --heads 4 ...]
(needs torch; on the project machine run it through the NVIDIA device machine).
"""

from __future__ import annotations

import argparse
import json
import math
import struct
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

MODEL_MAGIC, MODEL_VERSION_FP32 = 20240326, 3
STATE_MAGIC, STATE_VERSION = 20240327, 2
TOKENIZER_MAGIC, TOKENIZER_VERSION = 20240328, 2
DATA_MAGIC, DATA_VERSION = 20240520, 1
HEADER_WORDS = 256


class Block(nn.Module):
    def __init__(self, channels: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(channels)
        self.c_attn = nn.Linear(channels, 3 * channels)
        self.attn_proj = nn.Linear(channels, channels)
        self.ln_2 = nn.LayerNorm(channels)
        self.c_fc = nn.Linear(channels, 4 * channels)
        self.mlp_proj = nn.Linear(4 * channels, channels)

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        shape = (b, t, self.heads, c // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        future = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return self.attn_proj((weights @ v).transpose(1, 2).reshape(b, t, c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class TinyGPT2(nn.Module):
    def __init__(self, vocab: int, max_seq: int, layers: int, heads: int, channels: int) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, channels)
        self.wpe = nn.Embedding(max_seq, channels)
        self.blocks = nn.ModuleList(Block(channels, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(channels)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.T  # tied output matrix, as GPT-2


def initialise(model: TinyGPT2, gen: torch.Generator) -> None:
    """GPT-2's N(0, 0.02) weights (residual projections scaled by 1/sqrt(2L)); biases and
    LayerNorm parameters get small random values too, so every gradient check is non-trivial."""
    layers = len(model.blocks)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("proj.weight"):
                p.normal_(0.0, 0.02 / math.sqrt(2 * layers), generator=gen)
            elif p.ndim == 2:
                p.normal_(0.0, 0.02, generator=gen)
            elif "ln" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.normal_(0.0, 0.02, generator=gen)


def llmc_tensors(model: TinyGPT2, grads: bool, padded_vocab: int) -> list[torch.Tensor]:
    """The parameters (or their gradients) in llm.c's ParameterTensors order."""
    pick = (lambda p: p.grad) if grads else (lambda p: p.data)
    wte = pick(model.wte.weight)
    wte = torch.cat([wte, torch.zeros(padded_vocab - wte.shape[0], wte.shape[1])])
    per_layer = [
        lambda b: b.ln_1.weight, lambda b: b.ln_1.bias,
        lambda b: b.c_attn.weight, lambda b: b.c_attn.bias,
        lambda b: b.attn_proj.weight, lambda b: b.attn_proj.bias,
        lambda b: b.ln_2.weight, lambda b: b.ln_2.bias,
        lambda b: b.c_fc.weight, lambda b: b.c_fc.bias,
        lambda b: b.mlp_proj.weight, lambda b: b.mlp_proj.bias,
    ]
    out = [wte, pick(model.wpe.weight)]
    for get in per_layer:
        out.extend(pick(get(block)) for block in model.blocks)
    out += [pick(model.ln_f.weight), pick(model.ln_f.bias)]
    return out


def header(*words: int) -> bytes:
    h = np.zeros(HEADER_WORDS, dtype="<i4")
    h[: len(words)] = words
    return h.tobytes()


def f32(tensors: list[torch.Tensor]) -> bytes:
    return b"".join(t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
                    for t in tensors)


def markov_tokens(vocab: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """A sparse random Markov chain: each token has three likely successors (0.7/0.2/0.1)."""
    successors = rng.integers(0, vocab, size=(vocab, 3))
    choice = rng.choice(3, size=count, p=[0.7, 0.2, 0.1])
    tokens = np.empty(count, dtype=np.uint16)
    tokens[0] = vocab - 1
    for i in range(1, count):
        tokens[i] = successors[tokens[i - 1], choice[i]]
    return tokens


def write_tokens(path: Path, tokens: np.ndarray) -> None:
    path.write_bytes(header(DATA_MAGIC, DATA_VERSION, len(tokens)) + tokens.astype("<u2").tobytes())


def write_tokenizer(path: Path, vocab: int) -> None:
    body = bytearray()
    for i in range(vocab):
        text = b"<|endoftext|>" if i == vocab - 1 else f" w{i}".encode()
        body += struct.pack("<B", len(text)) + text
    path.write_bytes(header(TOKENIZER_MAGIC, TOKENIZER_VERSION, vocab, vocab - 1) + bytes(body))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--channels", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=500)
    ap.add_argument("--max-seq", type=int, default=64)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--train-tokens", type=int, default=65536)
    ap.add_argument("--val-tokens", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=1337)
    args = ap.parse_args()
    # llm.c's matmul_forward_kernel4 has no bounds checks: 128 | C, OC and B*T
    if args.channels % 128 or (args.batch * args.seq) % 128 or args.channels % args.heads:
        ap.error("llm.c's fp32 kernels need C and B*T multiples of 128 and NH | C")
    padded_vocab = (args.vocab + 127) // 128 * 128
    out = args.outdir
    out.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    model = TinyGPT2(args.vocab, args.max_seq, args.layers, args.heads, args.channels)
    initialise(model, gen)

    rng = np.random.default_rng(args.seed)
    stream = markov_tokens(args.vocab, args.train_tokens + args.val_tokens, rng)
    write_tokens(out / "train.bin", stream[: args.train_tokens])
    write_tokens(out / "val.bin", stream[args.train_tokens:])
    write_tokenizer(out / "gpt2_tokenizer.bin", args.vocab)

    config = (args.max_seq, args.vocab, args.layers, args.heads, args.channels, padded_vocab)
    (out / "gpt2_124M.bin").write_bytes(
        header(MODEL_MAGIC, MODEL_VERSION_FP32, *config) + f32(llmc_tensors(model, False, padded_vocab)))

    b, t = args.batch, args.seq
    batch = torch.from_numpy(stream[: b * t + 1].astype(np.int64))
    x, y = batch[:-1].view(b, t), batch[1:].view(b, t)
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, args.vocab), y.view(-1))
    loss.backward()
    state = header(STATE_MAGIC, STATE_VERSION, b, t)
    state += x.numpy().astype("<i4").tobytes() + y.numpy().astype("<i4").tobytes()
    state += f32([logits, loss.reshape(1)]) + f32(llmc_tensors(model, True, padded_vocab))
    (out / "gpt2_124M_debug_state.bin").write_bytes(state)

    # test_gpt2_fp32.cu: 10 steps on the debug batch, AdamW(lr 1e-4, 0.9, 0.999, 1e-8, wd 0.01)
    # on every parameter (llm.c's fp32 update decays all of them)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=0.01)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        step_loss = F.cross_entropy(model(x).view(-1, args.vocab), y.view(-1))
        step_loss.backward()
        opt.step()
        losses.append(step_loss.item())
    reference = {
        "torch": torch.__version__, "B": b, "T": t, "maxT": args.max_seq, "V": args.vocab,
        "Vp": padded_vocab, "L": args.layers, "NH": args.heads, "C": args.channels,
        "num_parameters": sum(p.numel() for p in model.parameters()) + (padded_vocab - args.vocab) * args.channels,
        "loss": loss.item(), "test_losses": losses,
        "unigram_entropy_nats": float(_entropy(stream[: args.train_tokens], args.vocab)),
    }
    (out / "reference.json").write_text(json.dumps(reference, indent=1) + "\n")
    print(json.dumps(reference))


def _entropy(tokens: np.ndarray, vocab: int) -> float:
    p = np.bincount(tokens, minlength=vocab) / len(tokens)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


if __name__ == "__main__":
    main()
