source_filename = "vector_add"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024-n8:16:32"
target triple = "air64_v26-apple-macosx14.0.0"

; Function Attrs: mustprogress nounwind
define void @vector_add(i8 addrspace(1)* noundef "air-buffer-no-alias" %cm_params, i32 addrspace(1)* noundef "air-buffer-no-alias" %cm_info, i8 addrspace(3)* noundef "air-buffer-no-alias" %cm_shared, <3 x i32> noundef %cm_tid, <3 x i32> noundef %cm_ctaid, <3 x i32> noundef %cm_ntid, <3 x i32> noundef %cm_nctaid, i32 noundef %cm_tindex, i32 noundef %cm_lane, i32 noundef %cm_warp) #0 {
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
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r3 = alloca i32, align 4
  store i32 0, i32* %r3, align 4
  %r4 = alloca i32, align 4
  store i32 0, i32* %r4, align 4
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %v = alloca i32, align 4
  store i32 0, i32* %v, align 4
  %r1 = alloca i32, align 4
  store i32 0, i32* %r1, align 4
  %p1 = alloca i1, align 1
  store i1 false, i1* %p1, align 1
  %rd4 = alloca i64, align 8
  store i64 0, i64* %rd4, align 8
  %v1 = alloca i64, align 8
  store i64 0, i64* %v1, align 8
  %rd5 = alloca i64, align 8
  store i64 0, i64* %rd5, align 8
  %rd6 = alloca i64, align 8
  store i64 0, i64* %rd6, align 8
  %rd7 = alloca i64, align 8
  store i64 0, i64* %rd7, align 8
  %rd8 = alloca i64, align 8
  store i64 0, i64* %rd8, align 8
  %f1 = alloca float, align 4
  store float 0.000000e+00, float* %f1, align 4
  %f2 = alloca float, align 4
  store float 0.000000e+00, float* %f2, align 4
  %f3 = alloca float, align 4
  store float 0.000000e+00, float* %f3, align 4
  %rd9 = alloca i64, align 8
  store i64 0, i64* %rd9, align 8
  %rd10 = alloca i64, align 8
  store i64 0, i64* %rd10, align 8
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
  %9 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 16
  %10 = bitcast i8 addrspace(1)* %9 to i64 addrspace(1)*
  %11 = load i64, i64 addrspace(1)* %10, align 8
  store i64 %11, i64* %rd3, align 8
  %12 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 24
  %13 = bitcast i8 addrspace(1)* %12 to i32 addrspace(1)*
  %14 = load i32, i32 addrspace(1)* %13, align 4
  store i32 %14, i32* %r2, align 4
  %15 = extractelement <3 x i32> %cm_ctaid, i32 0
  store i32 %15, i32* %r3, align 4
  %16 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %16, i32* %r4, align 4
  %17 = extractelement <3 x i32> %cm_tid, i32 0
  store i32 %17, i32* %r5, align 4
  %18 = load i32, i32* %r3, align 4
  %19 = load i32, i32* %r4, align 4
  %20 = mul i32 %18, %19
  store i32 %20, i32* %v, align 4
  %21 = load i32, i32* %v, align 4
  %22 = load i32, i32* %r5, align 4
  %23 = add i32 %21, %22
  store i32 %23, i32* %r1, align 4
  %24 = load i32, i32* %r1, align 4
  %25 = load i32, i32* %r2, align 4
  %26 = icmp sge i32 %24, %25
  store i1 %26, i1* %p1, align 1
  %27 = load i1, i1* %p1, align 1
  br i1 %27, label %L_L__BB0_2, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  %28 = load i64, i64* %rd1, align 8
  store i64 %28, i64* %rd4, align 8
  %29 = load i32, i32* %r1, align 4
  %30 = sext i32 %29 to i64
  store i64 %30, i64* %v1, align 8
  %31 = load i64, i64* %v1, align 8
  %32 = mul i64 %31, 4
  store i64 %32, i64* %rd5, align 8
  %33 = load i64, i64* %rd4, align 8
  %34 = load i64, i64* %rd5, align 8
  %35 = add i64 %33, %34
  store i64 %35, i64* %rd6, align 8
  %36 = load i64, i64* %rd2, align 8
  store i64 %36, i64* %rd7, align 8
  %37 = load i64, i64* %rd7, align 8
  %38 = load i64, i64* %rd5, align 8
  %39 = add i64 %37, %38
  store i64 %39, i64* %rd8, align 8
  %40 = load i64, i64* %rd8, align 8
  %41 = add i64 %40, %addr_delta
  %42 = inttoptr i64 %41 to float addrspace(1)*
  %43 = load float, float addrspace(1)* %42, align 4
  store float %43, float* %f1, align 4
  %44 = load i64, i64* %rd6, align 8
  %45 = add i64 %44, %addr_delta
  %46 = inttoptr i64 %45 to float addrspace(1)*
  %47 = load float, float addrspace(1)* %46, align 4
  store float %47, float* %f2, align 4
  %48 = load float, float* %f2, align 4
  %49 = load float, float* %f1, align 4
  %50 = fadd float %48, %49
  %51 = fcmp uno float %50, %50
  %52 = select i1 %51, float 0x7FFFFFFFE0000000, float %50
  store float %52, float* %f3, align 4
  %53 = load i64, i64* %rd3, align 8
  store i64 %53, i64* %rd9, align 8
  %54 = load i64, i64* %rd9, align 8
  %55 = load i64, i64* %rd5, align 8
  %56 = add i64 %54, %55
  store i64 %56, i64* %rd10, align 8
  %57 = load i64, i64* %rd10, align 8
  %58 = load float, float* %f3, align 4
  %59 = add i64 %57, %addr_delta
  %60 = inttoptr i64 %59 to float addrspace(1)*
  store float %58, float addrspace(1)* %60, align 4
  br label %L_L__BB0_2

L_L__BB0_2:                                       ; preds = %L_cm1, %Lentry
  ret void
}

attributes #0 = { mustprogress nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }

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
!15 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i8 addrspace(3)*, <3 x i32>, <3 x i32>, <3 x i32>, <3 x i32>, i32, i32, i32)* @vector_add, !16, !17}
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
