source_filename = "block_sum_dynamic"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024-n8:16:32"
target triple = "air64_v26-apple-macosx14.0.0"

; Function Attrs: convergent mustprogress nounwind
define void @block_sum_dynamic(i8 addrspace(1)* noundef "air-buffer-no-alias" %cm_params, i32 addrspace(1)* noundef "air-buffer-no-alias" %cm_info, i8 addrspace(3)* noundef "air-buffer-no-alias" %cm_shared, <3 x i32> noundef %cm_tid, <3 x i32> noundef %cm_ctaid, <3 x i32> noundef %cm_ntid, <3 x i32> noundef %cm_nctaid, i32 noundef %cm_tindex, i32 noundef %cm_lane, i32 noundef %cm_warp) #0 {
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
  %r1 = alloca i32, align 4
  store i32 0, i32* %r1, align 4
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r3 = alloca i32, align 4
  store i32 0, i32* %r3, align 4
  %r4 = alloca i32, align 4
  store i32 0, i32* %r4, align 4
  %f8 = alloca float, align 4
  store float 0.000000e+00, float* %f8, align 4
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %r14 = alloca i32, align 4
  store i32 0, i32* %r14, align 4
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
  %10 = bitcast i8 addrspace(1)* %9 to i32 addrspace(1)*
  %11 = load i32, i32 addrspace(1)* %10, align 4
  %12 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %12, i32* %r1, align 4
  %13 = extractelement <3 x i32> %cm_ctaid, i32 0
  store i32 %13, i32* %r2, align 4
  %14 = extractelement <3 x i32> %cm_tid, i32 0
  store i32 %14, i32* %r3, align 4
  %15 = load i32, i32* %r2, align 4
  %16 = load i32, i32* %r1, align 4
  %17 = mul i32 %15, %16
  %18 = load i32, i32* %r3, align 4
  %19 = add i32 %17, %18
  store i32 %19, i32* %r4, align 4
  %20 = load i32, i32* %r4, align 4
  %21 = icmp uge i32 %20, %11
  store float 0.000000e+00, float* %f8, align 4
  br i1 %21, label %L_L__BB1_2, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  %22 = load i32, i32* %r4, align 4
  %23 = zext i32 %22 to i64
  %24 = mul i64 %23, 4
  %25 = load i64, i64* %rd1, align 8
  %26 = add i64 %25, %24
  %27 = add i64 %26, %addr_delta
  %28 = inttoptr i64 %27 to float addrspace(1)*
  %29 = load float, float addrspace(1)* %28, align 4
  store float %29, float* %f8, align 4
  br label %L_L__BB1_2

L_L__BB1_2:                                       ; preds = %L_cm1, %Lentry
  %30 = load i32, i32* %r3, align 4
  %31 = shl i32 %30, 2
  %32 = trunc i64 0 to i32
  %33 = add i32 %32, %31
  store i32 %33, i32* %r5, align 4
  %34 = load i32, i32* %r5, align 4
  %35 = zext i32 %34 to i64
  %36 = load float, float* %f8, align 4
  %37 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %35
  %38 = bitcast i8 addrspace(3)* %37 to float addrspace(3)*
  store float %36, float addrspace(3)* %38, align 4
  call void @air.wg.barrier(i32 3, i32 1)
  %39 = load i32, i32* %r1, align 4
  %40 = lshr i32 %39, 1
  store i32 %40, i32* %r14, align 4
  %41 = load i32, i32* %r14, align 4
  %42 = icmp eq i32 %41, 0
  br i1 %42, label %L_L__BB1_6, label %L_cm2

L_cm2:                                            ; preds = %L_L__BB1_2
  br label %L_L__BB1_3

L_L__BB1_3:                                       ; preds = %L_L__BB1_5, %L_cm2
  %43 = load i32, i32* %r3, align 4
  %44 = load i32, i32* %r14, align 4
  %45 = icmp uge i32 %43, %44
  br i1 %45, label %L_L__BB1_5, label %L_cm3

L_cm3:                                            ; preds = %L_L__BB1_3
  %46 = load i32, i32* %r14, align 4
  %47 = shl i32 %46, 2
  %48 = load i32, i32* %r5, align 4
  %49 = add i32 %48, %47
  %50 = load i32, i32* %r5, align 4
  %51 = zext i32 %50 to i64
  %52 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %51
  %53 = bitcast i8 addrspace(3)* %52 to float addrspace(3)*
  %54 = load float, float addrspace(3)* %53, align 4
  %55 = zext i32 %49 to i64
  %56 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %55
  %57 = bitcast i8 addrspace(3)* %56 to float addrspace(3)*
  %58 = load float, float addrspace(3)* %57, align 4
  %59 = fadd float %58, %54
  %60 = fcmp uno float %59, %59
  %61 = select i1 %60, float 0x7FFFFFFFE0000000, float %59
  %62 = load i32, i32* %r5, align 4
  %63 = zext i32 %62 to i64
  %64 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %63
  %65 = bitcast i8 addrspace(3)* %64 to float addrspace(3)*
  store float %61, float addrspace(3)* %65, align 4
  br label %L_L__BB1_5

L_L__BB1_5:                                       ; preds = %L_cm3, %L_L__BB1_3
  call void @air.wg.barrier(i32 3, i32 1)
  %66 = load i32, i32* %r14, align 4
  %67 = lshr i32 %66, 1
  store i32 %67, i32* %r14, align 4
  %68 = load i32, i32* %r14, align 4
  %69 = icmp ne i32 %68, 0
  br i1 %69, label %L_L__BB1_3, label %L_cm4

L_cm4:                                            ; preds = %L_L__BB1_5
  br label %L_L__BB1_6

L_L__BB1_6:                                       ; preds = %L_cm4, %L_L__BB1_2
  %70 = load i32, i32* %r3, align 4
  %71 = icmp ne i32 %70, 0
  br i1 %71, label %L_L__BB1_8, label %L_cm5

L_cm5:                                            ; preds = %L_L__BB1_6
  %72 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 0
  %73 = bitcast i8 addrspace(3)* %72 to float addrspace(3)*
  %74 = load float, float addrspace(3)* %73, align 4
  %75 = load i32, i32* %r2, align 4
  %76 = zext i32 %75 to i64
  %77 = mul i64 %76, 4
  %78 = load i64, i64* %rd2, align 8
  %79 = add i64 %78, %77
  %80 = add i64 %79, %addr_delta
  %81 = inttoptr i64 %80 to float addrspace(1)*
  store float %74, float addrspace(1)* %81, align 4
  br label %L_L__BB1_8

L_L__BB1_8:                                       ; preds = %L_cm5, %L_L__BB1_6
  ret void
}

; Function Attrs: convergent mustprogress nounwind willreturn
declare void @air.wg.barrier(i32, i32) #1

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
!15 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i8 addrspace(3)*, <3 x i32>, <3 x i32>, <3 x i32>, <3 x i32>, i32, i32, i32)* @block_sum_dynamic, !16, !17}
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
