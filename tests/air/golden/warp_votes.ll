source_filename = "warp_votes"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024-n8:16:32"
target triple = "air64_v26-apple-macosx14.0.0"

; Function Attrs: convergent mustprogress nounwind
define void @warp_votes(i8 addrspace(1)* noundef "air-buffer-no-alias" %cm_params, i32 addrspace(1)* noundef "air-buffer-no-alias" %cm_info, i8 addrspace(3)* noundef "air-buffer-no-alias" %cm_shared, <3 x i32> noundef %cm_tid, <3 x i32> noundef %cm_ctaid, <3 x i32> noundef %cm_ntid, <3 x i32> noundef %cm_nctaid, i32 noundef %cm_tindex, i32 noundef %cm_lane, i32 noundef %cm_warp) #0 {
entry:
  %0 = bitcast i32 addrspace(1)* %cm_info to i64 addrspace(1)*
  %1 = getelementptr i64, i64 addrspace(1)* %0, i64 0
  %addr_delta = load i64, i64 addrspace(1)* %1, align 8
  %2 = getelementptr i64, i64 addrspace(1)* %0, i64 1
  %params_addr = load i64, i64 addrspace(1)* %2, align 8
  %local_stack = alloca [16 x i8], align 16
  %local = getelementptr inbounds [16 x i8], [16 x i8]* %local_stack, i64 0, i64 0
  %rd1 = alloca i64, align 8
  store i64 0, i64* %rd1, align 8
  %rd2 = alloca i64, align 8
  store i64 0, i64* %rd2, align 8
  %rd3 = alloca i64, align 8
  store i64 0, i64* %rd3, align 8
  %rd4 = alloca i64, align 8
  store i64 0, i64* %rd4, align 8
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r3 = alloca i32, align 4
  store i32 0, i32* %r3, align 4
  %r4 = alloca i32, align 4
  store i32 0, i32* %r4, align 4
  %v = alloca i32, align 4
  store i32 0, i32* %v, align 4
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %v1 = alloca i64, align 8
  store i64 0, i64* %v1, align 8
  %rd5 = alloca i64, align 8
  store i64 0, i64* %rd5, align 8
  %rd6 = alloca i64, align 8
  store i64 0, i64* %rd6, align 8
  %r6 = alloca i32, align 4
  store i32 0, i32* %r6, align 4
  %p1 = alloca i1, align 1
  store i1 false, i1* %p1, align 1
  %r7 = alloca i32, align 4
  store i32 0, i32* %r7, align 4
  %r8 = alloca i32, align 4
  store i32 0, i32* %r8, align 4
  %p3 = alloca i1, align 1
  store i1 false, i1* %p3, align 1
  %p4 = alloca i1, align 1
  store i1 false, i1* %p4, align 1
  %r10 = alloca i32, align 4
  store i32 0, i32* %r10, align 4
  %p5 = alloca i1, align 1
  store i1 false, i1* %p5, align 1
  %p6 = alloca i1, align 1
  store i1 false, i1* %p6, align 1
  %r12 = alloca i32, align 4
  store i32 0, i32* %r12, align 4
  %r1 = alloca i32, align 4
  store i32 0, i32* %r1, align 4
  %r13 = alloca i32, align 4
  store i32 0, i32* %r13, align 4
  %v2 = alloca i64, align 8
  store i64 0, i64* %v2, align 8
  %rd7 = alloca i64, align 8
  store i64 0, i64* %rd7, align 8
  %rd8 = alloca i64, align 8
  store i64 0, i64* %rd8, align 8
  %v3 = alloca i64, align 8
  store i64 0, i64* %v3, align 8
  %v4 = alloca i64, align 8
  store i64 0, i64* %v4, align 8
  %v5 = alloca i64, align 8
  store i64 0, i64* %v5, align 8
  br label %Lentry

Lentry:                                           ; preds = %entry
  %3 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 0
  %4 = bitcast i8 addrspace(1)* %3 to i64 addrspace(1)*
  %5 = load i64, i64 addrspace(1)* %4, align 8
  store i64 %5, i64* %rd1, align 8
  %6 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 8
  %7 = bitcast i8 addrspace(1)* %6 to i64 addrspace(1)*
  %8 = load i64, i64 addrspace(1)* %7, align 8
  store i64 %8, i64* %rd2, align 8
  %9 = load i64, i64* %rd2, align 8
  store i64 %9, i64* %rd3, align 8
  %10 = load i64, i64* %rd1, align 8
  store i64 %10, i64* %rd4, align 8
  %11 = extractelement <3 x i32> %cm_ctaid, i32 0
  store i32 %11, i32* %r2, align 4
  %12 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %12, i32* %r3, align 4
  %13 = extractelement <3 x i32> %cm_tid, i32 0
  store i32 %13, i32* %r4, align 4
  %14 = load i32, i32* %r2, align 4
  %15 = load i32, i32* %r3, align 4
  %16 = mul i32 %14, %15
  store i32 %16, i32* %v, align 4
  %17 = load i32, i32* %v, align 4
  %18 = load i32, i32* %r4, align 4
  %19 = add i32 %17, %18
  store i32 %19, i32* %r5, align 4
  %20 = load i32, i32* %r5, align 4
  %21 = sext i32 %20 to i64
  store i64 %21, i64* %v1, align 8
  %22 = load i64, i64* %v1, align 8
  %23 = mul i64 %22, 4
  store i64 %23, i64* %rd5, align 8
  %24 = load i64, i64* %rd4, align 8
  %25 = load i64, i64* %rd5, align 8
  %26 = add i64 %24, %25
  store i64 %26, i64* %rd6, align 8
  %27 = load i64, i64* %rd6, align 8
  %28 = add i64 %27, %addr_delta
  %29 = inttoptr i64 %28 to i32 addrspace(1)*
  %30 = load i32, i32 addrspace(1)* %29, align 4
  store i32 %30, i32* %r6, align 4
  %31 = load i32, i32* %r6, align 4
  %32 = icmp sgt i32 %31, 0
  store i1 %32, i1* %p1, align 1
  store i32 -1, i32* %r7, align 4
  %33 = load i1, i1* %p1, align 1
  %34 = load i32, i32* %r7, align 4
  %35 = shl i32 1, %cm_lane
  %36 = call i32 @air.simd_sum.u.i32(i32 %35)
  %37 = and i32 %34, %36
  %38 = shl i32 1, %cm_lane
  %39 = select i1 %33, i32 %38, i32 0
  %40 = call i32 @air.simd_sum.u.i32(i32 %39)
  %41 = and i32 %40, %37
  store i32 %41, i32* %r8, align 4
  %42 = load i32, i32* %r6, align 4
  %43 = icmp sgt i32 %42, 50
  store i1 %43, i1* %p3, align 1
  %44 = load i1, i1* %p3, align 1
  %45 = load i32, i32* %r7, align 4
  %46 = shl i32 1, %cm_lane
  %47 = call i32 @air.simd_sum.u.i32(i32 %46)
  %48 = and i32 %45, %47
  %49 = shl i32 1, %cm_lane
  %50 = select i1 %44, i32 %49, i32 0
  %51 = call i32 @air.simd_sum.u.i32(i32 %50)
  %52 = and i32 %51, %48
  %53 = icmp ne i32 %52, 0
  store i1 %53, i1* %p4, align 1
  %54 = load i1, i1* %p4, align 1
  %55 = select i1 %54, i32 1, i32 0
  store i32 %55, i32* %r10, align 4
  %56 = load i32, i32* %r6, align 4
  %57 = icmp sgt i32 %56, -1
  store i1 %57, i1* %p5, align 1
  %58 = load i1, i1* %p5, align 1
  %59 = load i32, i32* %r7, align 4
  %60 = shl i32 1, %cm_lane
  %61 = call i32 @air.simd_sum.u.i32(i32 %60)
  %62 = and i32 %59, %61
  %63 = shl i32 1, %cm_lane
  %64 = select i1 %58, i32 %63, i32 0
  %65 = call i32 @air.simd_sum.u.i32(i32 %64)
  %66 = and i32 %65, %62
  %67 = icmp eq i32 %66, %62
  store i1 %67, i1* %p6, align 1
  %68 = load i1, i1* %p6, align 1
  %69 = select i1 %68, i32 1, i32 0
  store i32 %69, i32* %r12, align 4
  %70 = shl i32 1, %cm_lane
  %71 = call i32 @air.simd_sum.u.i32(i32 %70)
  store i32 %71, i32* %r1, align 4
  %72 = load i32, i32* %r5, align 4
  %73 = icmp uge i32 2, 32
  %74 = select i1 %73, i32 0, i32 2
  %75 = shl i32 %72, %74
  %76 = select i1 %73, i32 0, i32 %75
  store i32 %76, i32* %r13, align 4
  %77 = load i32, i32* %r13, align 4
  %78 = sext i32 %77 to i64
  store i64 %78, i64* %v2, align 8
  %79 = load i64, i64* %v2, align 8
  %80 = mul i64 %79, 4
  store i64 %80, i64* %rd7, align 8
  %81 = load i64, i64* %rd3, align 8
  %82 = load i64, i64* %rd7, align 8
  %83 = add i64 %81, %82
  store i64 %83, i64* %rd8, align 8
  %84 = load i64, i64* %rd8, align 8
  %85 = load i32, i32* %r8, align 4
  %86 = add i64 %84, %addr_delta
  %87 = inttoptr i64 %86 to i32 addrspace(1)*
  store i32 %85, i32 addrspace(1)* %87, align 4
  %88 = load i64, i64* %rd8, align 8
  %89 = add i64 %88, 4
  store i64 %89, i64* %v3, align 8
  %90 = load i64, i64* %v3, align 8
  %91 = load i32, i32* %r10, align 4
  %92 = add i64 %90, %addr_delta
  %93 = inttoptr i64 %92 to i32 addrspace(1)*
  store i32 %91, i32 addrspace(1)* %93, align 4
  %94 = load i64, i64* %rd8, align 8
  %95 = add i64 %94, 8
  store i64 %95, i64* %v4, align 8
  %96 = load i64, i64* %v4, align 8
  %97 = load i32, i32* %r12, align 4
  %98 = add i64 %96, %addr_delta
  %99 = inttoptr i64 %98 to i32 addrspace(1)*
  store i32 %97, i32 addrspace(1)* %99, align 4
  %100 = load i64, i64* %rd8, align 8
  %101 = add i64 %100, 12
  store i64 %101, i64* %v5, align 8
  %102 = load i64, i64* %v5, align 8
  %103 = load i32, i32* %r1, align 4
  %104 = add i64 %102, %addr_delta
  %105 = inttoptr i64 %104 to i32 addrspace(1)*
  store i32 %103, i32 addrspace(1)* %105, align 4
  ret void
}

; Function Attrs: convergent mustprogress nounwind willreturn
declare i32 @air.simd_sum.u.i32(i32) #1

attributes #0 = { convergent mustprogress nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { convergent mustprogress nounwind willreturn }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6, !7, !8}
!llvm.ident = !{!9}
!air.version = !{!10}
!air.language_version = !{!11}
!air.compile_options = !{!12, !13, !14}
!air.kernel = !{!15}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 14, i32 0]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 7, !"frame-pointer", i32 2}
!3 = !{i32 7, !"air.max_device_buffers", i32 31}
!4 = !{i32 7, !"air.max_constant_buffers", i32 31}
!5 = !{i32 7, !"air.max_threadgroup_buffers", i32 31}
!6 = !{i32 7, !"air.max_textures", i32 128}
!7 = !{i32 7, !"air.max_read_write_textures", i32 8}
!8 = !{i32 7, !"air.max_samplers", i32 16}
!9 = !{!"CuMetal AIR lowering (Apple metal version 32023.883 compatible)"}
!10 = !{i32 2, i32 6, i32 0}
!11 = !{!"Metal", i32 3, i32 1, i32 0}
!12 = !{!"air.compile.denorms_disable"}
!13 = !{!"air.compile.fast_math_disable"}
!14 = !{!"air.compile.framebuffer_fetch_enable"}
!15 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i8 addrspace(3)*, <3 x i32>, <3 x i32>, <3 x i32>, <3 x i32>, i32, i32, i32)* @warp_votes, !16, !17}
!16 = !{}
!17 = !{!18, !19, !20, !21, !22, !23, !24, !25, !26, !27}
!18 = !{i32 0, !"air.buffer", !"air.location_index", i32 0, i32 1, !"air.read", !"air.address_space", i32 1, !"air.arg_type_size", i32 1, !"air.arg_type_align_size", i32 1, !"air.arg_type_name", !"uchar", !"air.arg_name", !"cm_params"}
!19 = !{i32 1, !"air.buffer", !"air.location_index", i32 1, i32 1, !"air.read_write", !"air.address_space", i32 1, !"air.arg_type_size", i32 4, !"air.arg_type_align_size", i32 4, !"air.arg_type_name", !"uint", !"air.arg_name", !"cm_info"}
!20 = !{i32 2, !"air.buffer", !"air.location_index", i32 0, i32 1, !"air.read_write", !"air.address_space", i32 3, !"air.arg_type_size", i32 1, !"air.arg_type_align_size", i32 1, !"air.arg_type_name", !"uchar", !"air.arg_name", !"cm_shared"}
!21 = !{i32 3, !"air.thread_position_in_threadgroup", !"air.arg_type_name", !"uint3", !"air.arg_name", !"cm_tid"}
!22 = !{i32 4, !"air.threadgroup_position_in_grid", !"air.arg_type_name", !"uint3", !"air.arg_name", !"cm_ctaid"}
!23 = !{i32 5, !"air.threads_per_threadgroup", !"air.arg_type_name", !"uint3", !"air.arg_name", !"cm_ntid"}
!24 = !{i32 6, !"air.threadgroups_per_grid", !"air.arg_type_name", !"uint3", !"air.arg_name", !"cm_nctaid"}
!25 = !{i32 7, !"air.thread_index_in_threadgroup", !"air.arg_type_name", !"uint", !"air.arg_name", !"cm_tindex"}
!26 = !{i32 8, !"air.thread_index_in_simdgroup", !"air.arg_type_name", !"uint", !"air.arg_name", !"cm_lane"}
!27 = !{i32 9, !"air.simdgroup_index_in_threadgroup", !"air.arg_type_name", !"uint", !"air.arg_name", !"cm_warp"}
