"""PyObjC signatures of every Metal selector CuMetal sends (devices/metal/bridge.py), as the
macOS wheel of pyobjc-framework-Metal 12.2.2 declares them in Metal/_metadata.py (regenerate or
check with scripts/pyobjc_metal_signatures.py). The test stand-in (test_metal_standin.py) checks
every call against this table the way PyObjC converts arguments on a Mac.

selector -> (return type code, argument type codes). Codes are Objective-C's: ``Q``/``q`` 64-bit
unsigned/signed integer, ``Z`` BOOL, ``d`` double, ``@`` object, ``v`` void, ``^v`` pointer,
``z`` a char passed as a Python int, ``{MTLSize=QQQ}``/``{_NSRange=QQ}`` structs. ``:o`` marks an
out-parameter (PyObjC wants None there and returns ``(result, out value)``), ``:n`` an input
buffer whose length is the next argument.
"""

from __future__ import annotations

SIGNATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "GPUEndTime": ('d', ()),
    "GPUStartTime": ('d', ()),
    "blitCommandEncoder": ('@', ()),
    "commandBuffer": ('@', ()),
    "commit": ('v', ()),
    "computeCommandEncoder": ('@', ()),
    "contents": ('^v', ()),
    "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:": ('v', ('@', 'Q', '@', 'Q', 'Q')),
    "dispatchThreadgroups:threadsPerThreadgroup:": ('v', ('{MTLSize=QQQ}', '{MTLSize=QQQ}')),
    "encodeSignalEvent:value:": ('v', ('@', 'Q')),
    "encodeWaitForEvent:value:": ('v', ('@', 'Q')),
    "endEncoding": ('v', ()),
    "error": ('@', ()),
    "fillBuffer:range:value:": ('v', ('@', '{_NSRange=QQ}', 'z')),
    "gpuAddress": ('Q', ()),
    "maxBufferLength": ('Q', ()),
    "maxThreadgroupMemoryLength": ('Q', ()),
    "maxThreadsPerThreadgroup": ('{MTLSize=QQQ}', ()),
    "maxTotalThreadsPerThreadgroup": ('Q', ()),
    "name": ('@', ()),
    "newBufferWithLength:options:": ('@', ('Q', 'Q')),
    "newCommandQueue": ('@', ()),
    "newComputePipelineStateWithFunction:error:": ('@', ('@', '^@:o')),
    "newFunctionWithName:": ('@', ('@',)),
    "newLibraryWithSource:options:error:": ('@', ('@', '@', '^@:o')),
    "newLibraryWithURL:error:": ('@', ('@', '^@:o')),
    "newSharedEvent": ('@', ()),
    "recommendedMaxWorkingSetSize": ('Q', ()),
    "setBuffer:offset:atIndex:": ('v', ('@', 'Q', 'Q')),
    "setBytes:length:atIndex:": ('v', ('^v:n', 'Q', 'Q')),
    "setComputePipelineState:": ('v', ('@',)),
    "setFastMathEnabled:": ('v', ('Z',)),
    "setThreadgroupMemoryLength:atIndex:": ('v', ('Q', 'Q')),
    "signaledValue": ('Q', ()),
    "status": ('q', ()),
    "supportsFamily:": ('Z', ('q',)),
    "threadExecutionWidth": ('Q', ()),
    "useResource:usage:": ('v', ('@', 'Q')),
    "waitUntilCompleted": ('v', ()),
    # properties whose types PyObjC reads from the Objective-C runtime (not in _metadata.py);
    # from the MTLCompileOptions declarations: MTLLanguageVersion is NSUInteger, the math enums NSInteger
    "setLanguageVersion:": ('v', ('Q',)),
    "setMathMode:": ('v', ('q',)),
    "setMathFloatingPointFunctions:": ('v', ('q',)),
}
