"""Relocatable device code (nvcc ``-rdc=true``): several translation units' NVPTX bitcode linked into
one module with llvmlite (LLVM 22, the same major version as the pinned clang), optimised, and
emitted as PTX by llvmlite's NVPTX target — what nvlink does for NVIDIA machine code."""

from __future__ import annotations

from cumetal.cudacxx.options import CudaOptions, normalize_arch, ptx_feature


class LinkError(Exception):
    """Device-code linking failed (e.g. an undefined or twice-defined device symbol)."""


def link_bitcode_to_ptx(modules: list[tuple[str, bytes]], options: CudaOptions) -> str:
    """Link ``[(name, bitcode), …]`` and return PTX for ``options.arch``."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    arch = normalize_arch(options.arch)
    try:
        linked = None
        for name, bc in modules:
            try:
                mod = llvm.parse_bitcode(bc)
            except RuntimeError as e:
                raise LinkError(f"{name}: not LLVM bitcode: {e}") from None
            mod.name = name
            if linked is None:
                linked = mod
            else:
                linked.link_in(mod)
        if linked is None:
            raise LinkError("nothing to link")
        linked.verify()
    except RuntimeError as e:
        raise LinkError(f"device link failed: {str(e).strip()}") from None
    opt = 0 if options.debug else options.opt_level
    tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu=arch, features=ptx_feature(arch), opt=opt)
    if opt:
        pto = llvm.create_pipeline_tuning_options(speed_level=opt)
        pb = llvm.create_pass_builder(tm, pto)
        pb.getModulePassManager().run(linked, pb)
    return tm.emit_assembly(linked)
