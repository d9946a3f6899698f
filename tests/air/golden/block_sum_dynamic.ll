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
  %r9 = alloca i32, align 4
  store i32 0, i32* %r9, align 4
  %r1 = alloca i32, align 4
  store i32 0, i32* %r1, align 4
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r3 = alloca i32, align 4
  store i32 0, i32* %r3, align 4
  %v = alloca i32, align 4
  store i32 0, i32* %v, align 4
  %r4 = alloca i32, align 4
  store i32 0, i32* %r4, align 4
  %p1 = alloca i1, align 1
  store i1 false, i1* %p1, align 1
  %f8 = alloca float, align 4
  store float 0.000000e+00, float* %f8, align 4
  %rd3 = alloca i64, align 8
  store i64 0, i64* %rd3, align 8
  %v1 = alloca i64, align 8
  store i64 0, i64* %v1, align 8
  %rd4 = alloca i64, align 8
  store i64 0, i64* %rd4, align 8
  %rd5 = alloca i64, align 8
  store i64 0, i64* %rd5, align 8
  %r10 = alloca i32, align 4
  store i32 0, i32* %r10, align 4
  %r11 = alloca i32, align 4
  store i32 0, i32* %r11, align 4
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %v2 = alloca i64, align 8
  store i64 0, i64* %v2, align 8
  %r14 = alloca i32, align 4
  store i32 0, i32* %r14, align 4
  %p2 = alloca i1, align 1
  store i1 false, i1* %p2, align 1
  %p3 = alloca i1, align 1
  store i1 false, i1* %p3, align 1
  %r12 = alloca i32, align 4
  store i32 0, i32* %r12, align 4
  %r13 = alloca i32, align 4
  store i32 0, i32* %r13, align 4
  %v3 = alloca i64, align 8
  store i64 0, i64* %v3, align 8
  %f4 = alloca float, align 4
  store float 0.000000e+00, float* %f4, align 4
  %v4 = alloca i64, align 8
  store i64 0, i64* %v4, align 8
  %f5 = alloca float, align 4
  store float 0.000000e+00, float* %f5, align 4
  %f6 = alloca float, align 4
  store float 0.000000e+00, float* %f6, align 4
  %v5 = alloca i64, align 8
  store i64 0, i64* %v5, align 8
  %p4 = alloca i1, align 1
  store i1 false, i1* %p4, align 1
  %p5 = alloca i1, align 1
  store i1 false, i1* %p5, align 1
  %f7 = alloca float, align 4
  store float 0.000000e+00, float* %f7, align 4
  %rd6 = alloca i64, align 8
  store i64 0, i64* %rd6, align 8
  %v6 = alloca i64, align 8
  store i64 0, i64* %v6, align 8
  %rd7 = alloca i64, align 8
  store i64 0, i64* %rd7, align 8
  %rd8 = alloca i64, align 8
  store i64 0, i64* %rd8, align 8
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
  store i32 %11, i32* %r9, align 4
  %12 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %12, i32* %r1, align 4
  %13 = extractelement <3 x i32> %cm_ctaid, i32 0
  store i32 %13, i32* %r2, align 4
  %14 = extractelement <3 x i32> %cm_tid, i32 0
  store i32 %14, i32* %r3, align 4
  %15 = load i32, i32* %r2, align 4
  %16 = load i32, i32* %r1, align 4
  %17 = mul i32 %15, %16
  store i32 %17, i32* %v, align 4
  %18 = load i32, i32* %v, align 4
  %19 = load i32, i32* %r3, align 4
  %20 = add i32 %18, %19
  store i32 %20, i32* %r4, align 4
  %21 = load i32, i32* %r4, align 4
  %22 = load i32, i32* %r9, align 4
  %23 = icmp uge i32 %21, %22
  store i1 %23, i1* %p1, align 1
  store float 0.000000e+00, float* %f8, align 4
  %24 = load i1, i1* %p1, align 1
  br i1 %24, label %L_L__BB1_2, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  %25 = load i64, i64* %rd1, align 8
  store i64 %25, i64* %rd3, align 8
  %26 = load i32, i32* %r4, align 4
  %27 = zext i32 %26 to i64
  store i64 %27, i64* %v1, align 8
  %28 = load i64, i64* %v1, align 8
  %29 = mul i64 %28, 4
  store i64 %29, i64* %rd4, align 8
  %30 = load i64, i64* %rd3, align 8
  %31 = load i64, i64* %rd4, align 8
  %32 = add i64 %30, %31
  store i64 %32, i64* %rd5, align 8
  %33 = load i64, i64* %rd5, align 8
  %34 = add i64 %33, %addr_delta
  %35 = inttoptr i64 %34 to float addrspace(1)*
  %36 = load float, float addrspace(1)* %35, align 4
  store float %36, float* %f8, align 4
  br label %L_L__BB1_2

L_L__BB1_2:                                       ; preds = %L_cm1, %Lentry
  %37 = load i32, i32* %r3, align 4
  %38 = icmp uge i32 2, 32
  %39 = select i1 %38, i32 0, i32 2
  %40 = shl i32 %37, %39
  %41 = select i1 %38, i32 0, i32 %40
  store i32 %41, i32* %r10, align 4
  %42 = trunc i64 0 to i32
  store i32 %42, i32* %r11, align 4
  %43 = load i32, i32* %r11, align 4
  %44 = load i32, i32* %r10, align 4
  %45 = add i32 %43, %44
  store i32 %45, i32* %r5, align 4
  %46 = load i32, i32* %r5, align 4
  %47 = zext i32 %46 to i64
  store i64 %47, i64* %v2, align 8
  %48 = load i64, i64* %v2, align 8
  %49 = load float, float* %f8, align 4
  %50 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %48
  %51 = bitcast i8 addrspace(3)* %50 to float addrspace(3)*
  store float %49, float addrspace(3)* %51, align 4
  call void @air.wg.barrier(i32 3, i32 1)
  %52 = load i32, i32* %r1, align 4
  %53 = icmp uge i32 1, 32
  %54 = select i1 %53, i32 0, i32 1
  %55 = lshr i32 %52, %54
  %56 = select i1 %53, i32 0, i32 %55
  store i32 %56, i32* %r14, align 4
  %57 = load i32, i32* %r14, align 4
  %58 = icmp eq i32 %57, 0
  store i1 %58, i1* %p2, align 1
  %59 = load i1, i1* %p2, align 1
  br i1 %59, label %L_L__BB1_6, label %L_cm2

L_cm2:                                            ; preds = %L_L__BB1_2
  br label %L_L__BB1_3

L_L__BB1_3:                                       ; preds = %L_L__BB1_5, %L_cm2
  %60 = load i32, i32* %r3, align 4
  %61 = load i32, i32* %r14, align 4
  %62 = icmp uge i32 %60, %61
  store i1 %62, i1* %p3, align 1
  %63 = load i1, i1* %p3, align 1
  br i1 %63, label %L_L__BB1_5, label %L_cm3

L_cm3:                                            ; preds = %L_L__BB1_3
  %64 = load i32, i32* %r14, align 4
  %65 = icmp uge i32 2, 32
  %66 = select i1 %65, i32 0, i32 2
  %67 = shl i32 %64, %66
  %68 = select i1 %65, i32 0, i32 %67
  store i32 %68, i32* %r12, align 4
  %69 = load i32, i32* %r5, align 4
  %70 = load i32, i32* %r12, align 4
  %71 = add i32 %69, %70
  store i32 %71, i32* %r13, align 4
  %72 = load i32, i32* %r5, align 4
  %73 = zext i32 %72 to i64
  store i64 %73, i64* %v3, align 8
  %74 = load i64, i64* %v3, align 8
  %75 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %74
  %76 = bitcast i8 addrspace(3)* %75 to float addrspace(3)*
  %77 = load float, float addrspace(3)* %76, align 4
  store float %77, float* %f4, align 4
  %78 = load i32, i32* %r13, align 4
  %79 = zext i32 %78 to i64
  store i64 %79, i64* %v4, align 8
  %80 = load i64, i64* %v4, align 8
  %81 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %80
  %82 = bitcast i8 addrspace(3)* %81 to float addrspace(3)*
  %83 = load float, float addrspace(3)* %82, align 4
  store float %83, float* %f5, align 4
  %84 = load float, float* %f5, align 4
  %85 = load float, float* %f4, align 4
  %86 = fadd float %84, %85
  %87 = fcmp uno float %86, %86
  %88 = select i1 %87, float 0x7FFFFFFFE0000000, float %86
  store float %88, float* %f6, align 4
  %89 = load i32, i32* %r5, align 4
  %90 = zext i32 %89 to i64
  store i64 %90, i64* %v5, align 8
  %91 = load i64, i64* %v5, align 8
  %92 = load float, float* %f6, align 4
  %93 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 %91
  %94 = bitcast i8 addrspace(3)* %93 to float addrspace(3)*
  store float %92, float addrspace(3)* %94, align 4
  br label %L_L__BB1_5

L_L__BB1_5:                                       ; preds = %L_cm3, %L_L__BB1_3
  call void @air.wg.barrier(i32 3, i32 1)
  %95 = load i32, i32* %r14, align 4
  %96 = icmp uge i32 1, 32
  %97 = select i1 %96, i32 0, i32 1
  %98 = lshr i32 %95, %97
  %99 = select i1 %96, i32 0, i32 %98
  store i32 %99, i32* %r14, align 4
  %100 = load i32, i32* %r14, align 4
  %101 = icmp ne i32 %100, 0
  store i1 %101, i1* %p4, align 1
  %102 = load i1, i1* %p4, align 1
  br i1 %102, label %L_L__BB1_3, label %L_cm4

L_cm4:                                            ; preds = %L_L__BB1_5
  br label %L_L__BB1_6

L_L__BB1_6:                                       ; preds = %L_cm4, %L_L__BB1_2
  %103 = load i32, i32* %r3, align 4
  %104 = icmp ne i32 %103, 0
  store i1 %104, i1* %p5, align 1
  %105 = load i1, i1* %p5, align 1
  br i1 %105, label %L_L__BB1_8, label %L_cm5

L_cm5:                                            ; preds = %L_L__BB1_6
  %106 = getelementptr i8, i8 addrspace(3)* %cm_shared, i64 0
  %107 = bitcast i8 addrspace(3)* %106 to float addrspace(3)*
  %108 = load float, float addrspace(3)* %107, align 4
  store float %108, float* %f7, align 4
  %109 = load i64, i64* %rd2, align 8
  store i64 %109, i64* %rd6, align 8
  %110 = load i32, i32* %r2, align 4
  %111 = zext i32 %110 to i64
  store i64 %111, i64* %v6, align 8
  %112 = load i64, i64* %v6, align 8
  %113 = mul i64 %112, 4
  store i64 %113, i64* %rd7, align 8
  %114 = load i64, i64* %rd6, align 8
  %115 = load i64, i64* %rd7, align 8
  %116 = add i64 %114, %115
  store i64 %116, i64* %rd8, align 8
  %117 = load i64, i64* %rd8, align 8
  %118 = load float, float* %f7, align 4
  %119 = add i64 %117, %addr_delta
  %120 = inttoptr i64 %119 to float addrspace(1)*
  store float %118, float addrspace(1)* %120, align 4
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
