"""Accuracy bounds for .approx (and other not-correctly-rounded) instructions.

Each entry gives two rules:
  truth:   how far the NVIDIA result may be from the exact value (from the PTX ISA accuracy
           statements; checked against numpy float64 references in test_goldens.py, so a wrong
           bound is caught on the stored hardware data);
  backend: how far a backend's result may be from the NVIDIA golden. A backend that meets the
           same truth bound can differ from the hardware by both errors added (triangle
           inequality), hence the doubled numbers.
Rules use the syntax of compare.py ('ulp:N', 'abs:E', 'rel:E', alternatives joined by '|').
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bound:
    truth: str
    backend: str
    source: str


BOUNDS: dict[str, Bound] = {
    "rcp.approx.f32": Bound("ulp:1", "ulp:2", "PTX ISA rcp.approx.f32: max 1 ulp"),
    "sqrt.approx.f32": Bound("rel:1.2e-7", "ulp:2", "PTX ISA sqrt.approx.f32: max relative error 2^-23"),
    "rsqrt.approx.f32": Bound("rel:1.4e-7", "ulp:4", "PTX ISA rsqrt.approx.f32: max relative error 2^-22.9"),
    "div.approx.f32": Bound("ulp:2", "ulp:4", "PTX ISA div.approx.f32: max 2 ulp for |b| in [2^-126, 2^126]"),
    "div.full.f32": Bound("ulp:2", "ulp:4", "PTX ISA div.full.f32: max 2 ulp"),
    "ex2.approx.f32": Bound("ulp:2", "ulp:4", "PTX ISA ex2.approx.f32: max 2 ulp over the full range"),
    "lg2.approx.f32": Bound("abs:2.9e-7|rel:2.4e-7", "abs:5.8e-7|rel:4.8e-7",
                            "PTX ISA lg2.approx.f32: max absolute error 2^-22.6 for x in (0.5, 2), "
                            "otherwise max relative error 2^-22"),
    "sin.approx.f32": Bound("abs:6.7e-7", "abs:1.4e-6", "max absolute error 2^-20.5 for |x| <= pi "
                            "(H200 measured 2^-21.56)"),
    "cos.approx.f32": Bound("abs:6.7e-7", "abs:1.4e-6", "max absolute error 2^-20.5 for |x| <= pi "
                            "(H200 measured 2^-21.56)"),
    "sin.approx.f32.wide": Bound("abs:7.5e-5", "abs:1.5e-4", "|x| <= 100pi: the error grows about linearly "
                                 "with |x| (argument reduction in f32; H200 measured max err/|x| = 2^-22.8), "
                                 "bound 100pi * 2^-22"),
    "cos.approx.f32.wide": Bound("abs:7.5e-5", "abs:1.5e-4", "as sin.approx.f32.wide"),
    "tanh.approx.f32": Bound("rel:4.9e-4|abs:1e-30", "rel:9.8e-4|abs:2e-30",
                             "PTX ISA tanh.approx.f32: max relative error 2^-10.987"),
    "rcp.approx.ftz.f64": Bound("rel:2e-5", "rel:4e-5", "PTX ISA rcp.approx.ftz.f64: a fast approximation; "
                                "bound measured on H100/H200 (about 2^-17 relative), not stated by the ISA"),
    "rsqrt.approx.f64": Bound("rel:2e-5", "rel:4e-5", "PTX ISA rsqrt.approx.f64: a fast approximation; "
                              "bound measured, not stated by the ISA"),
    "ex2.approx.f16": Bound("rel:1.1e-3|abs:6e-8", "rel:2.2e-3|abs:1.2e-7",
                            "PTX ISA ex2.approx.f16: max relative error 2^-9.9; subnormal f16 results "
                            "(below 2^-14) carry fewer bits, so one subnormal ulp (2^-24) is allowed too"),
    "tanh.approx.f16": Bound("rel:2e-3|abs:1e-7", "rel:4e-3|abs:2e-7",
                             "PTX ISA tanh.approx.f16: max relative error 2^-10.987 (f16 rounding adds 2^-11)"),
    "ex2.approx.ftz.bf16": Bound("rel:7.9e-3", "rel:1.6e-2", "PTX ISA ex2.approx.ftz.bf16: max relative error 2^-7"),
}


def backend_rule(op: str) -> str:
    return BOUNDS[op].backend
