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
  %r1 = alloca i32, align 4
  store i32 0, i32* %r1, align 4
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
  %15 = extractelement <3 x i32> %cm_ctaid, i32 0
  %16 = extractelement <3 x i32> %cm_ntid, i32 0
  %17 = extractelement <3 x i32> %cm_tid, i32 0
  %18 = mul i32 %15, %16
  %19 = add i32 %18, %17
  store i32 %19, i32* %r1, align 4
  %20 = load i32, i32* %r1, align 4
  %21 = icmp sge i32 %20, %14
  br i1 %21, label %L_L__BB0_2, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  %22 = load i32, i32* %r1, align 4
  %23 = sext i32 %22 to i64
  %24 = mul i64 %23, 4
  %25 = load i64, i64* %rd1, align 8
  %26 = add i64 %25, %24
  %27 = load i64, i64* %rd2, align 8
  %28 = add i64 %27, %24
  %29 = add i64 %28, %addr_delta
  %30 = inttoptr i64 %29 to float addrspace(1)*
  %31 = load float, float addrspace(1)* %30, align 4
  %32 = add i64 %26, %addr_delta
  %33 = inttoptr i64 %32 to float addrspace(1)*
  %34 = load float, float addrspace(1)* %33, align 4
  %35 = fadd float %34, %31
  %36 = fcmp uno float %35, %35
  %37 = select i1 %36, float 0x7FFFFFFFE0000000, float %35
  %38 = load i64, i64* %rd3, align 8
  %39 = add i64 %38, %24
  %40 = add i64 %39, %addr_delta
  %41 = inttoptr i64 %40 to float addrspace(1)*
  store float %37, float addrspace(1)* %41, align 4
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
