source_filename = "histogram"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024-n8:16:32"
target triple = "air64_v26-apple-macosx14.0.0"

@cm_static_shared = internal unnamed_addr addrspace(3) global [1024 x i8] undef, align 16

; Function Attrs: convergent mustprogress nounwind
define void @histogram(i8 addrspace(1)* noundef "air-buffer-no-alias" %cm_params, i32 addrspace(1)* noundef "air-buffer-no-alias" %cm_info, i8 addrspace(3)* noundef "air-buffer-no-alias" %cm_shared, <3 x i32> noundef %cm_tid, <3 x i32> noundef %cm_ctaid, <3 x i32> noundef %cm_ntid, <3 x i32> noundef %cm_nctaid, i32 noundef %cm_tindex, i32 noundef %cm_lane, i32 noundef %cm_warp) #0 {
entry:
  %0 = bitcast i32 addrspace(1)* %cm_info to i64 addrspace(1)*
  %1 = getelementptr i64, i64 addrspace(1)* %0, i64 0
  %addr_delta = load i64, i64 addrspace(1)* %1, align 8
  %2 = getelementptr i64, i64 addrspace(1)* %0, i64 1
  %params_addr = load i64, i64 addrspace(1)* %2, align 8
  %local_stack = alloca [16 x i8], align 16
  %local = getelementptr inbounds [16 x i8], [16 x i8]* %local_stack, i64 0, i64 0
  %rd2 = alloca i64, align 8
  store i64 0, i64* %rd2, align 8
  %rd3 = alloca i64, align 8
  store i64 0, i64* %rd3, align 8
  %r9 = alloca i32, align 4
  store i32 0, i32* %r9, align 4
  %r10 = alloca i32, align 4
  store i32 0, i32* %r10, align 4
  %r28 = alloca i32, align 4
  store i32 0, i32* %r28, align 4
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r27 = alloca i32, align 4
  store i32 0, i32* %r27, align 4
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %r6 = alloca i32, align 4
  store i32 0, i32* %r6, align 4
  %rd1 = alloca i64, align 8
  store i64 0, i64* %rd1, align 8
  %r23 = alloca i32, align 4
  store i32 0, i32* %r23, align 4
  br label %Lentry

Lentry:                                           ; preds = %entry
  %3 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 0
  %4 = bitcast i8 addrspace(1)* %3 to i64 addrspace(1)*
  %5 = load i64, i64 addrspace(1)* %4, align 8
  store i64 %5, i64* %rd2, align 8
  %6 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 8
  %7 = bitcast i8 addrspace(1)* %6 to i64 addrspace(1)*
  %8 = load i64, i64 addrspace(1)* %7, align 8
  store i64 %8, i64* %rd3, align 8
  %9 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 16
  %10 = bitcast i8 addrspace(1)* %9 to i32 addrspace(1)*
  %11 = load i32, i32 addrspace(1)* %10, align 4
  store i32 %11, i32* %r9, align 4
  %12 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 20
  %13 = bitcast i8 addrspace(1)* %12 to i32 addrspace(1)*
  %14 = load i32, i32 addrspace(1)* %13, align 4
  store i32 %14, i32* %r10, align 4
  %15 = extractelement <3 x i32> %cm_tid, i32 0
  store i32 %15, i32* %r28, align 4
  %16 = load i32, i32* %r28, align 4
  %17 = load i32, i32* %r10, align 4
  %18 = icmp slt i32 %16, %17
  br i1 %18, label %L_L__BB0_1, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  br label %L_L__BB0_3

L_L__BB0_1:                                       ; preds = %Lentry
  %19 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %19, i32* %r2, align 4
  %20 = load i32, i32* %r28, align 4
  store i32 %20, i32* %r27, align 4
  br label %L_L__BB0_2

L_L__BB0_2:                                       ; preds = %L_L__BB0_2, %L_L__BB0_1
  %21 = load i32, i32* %r27, align 4
  %22 = shl i32 %21, 2
  %23 = trunc i64 0 to i32
  %24 = add i32 %23, %22
  %25 = zext i32 %24 to i64
  %26 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %25
  %27 = bitcast i8 addrspace(3)* %26 to i32 addrspace(3)*
  store i32 0, i32 addrspace(3)* %27, align 4
  %28 = load i32, i32* %r27, align 4
  %29 = load i32, i32* %r2, align 4
  %30 = add i32 %28, %29
  store i32 %30, i32* %r27, align 4
  %31 = load i32, i32* %r27, align 4
  %32 = load i32, i32* %r10, align 4
  %33 = icmp slt i32 %31, %32
  br i1 %33, label %L_L__BB0_2, label %L_cm3

L_cm3:                                            ; preds = %L_L__BB0_2
  br label %L_L__BB0_3

L_L__BB0_3:                                       ; preds = %L_cm3, %L_cm1
  %34 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %34, i32* %r5, align 4
  call void @air.wg.barrier(i32 3, i32 1)
  %35 = extractelement <3 x i32> %cm_ctaid, i32 0
  %36 = load i32, i32* %r5, align 4
  %37 = mul i32 %35, %36
  %38 = load i32, i32* %r28, align 4
  %39 = add i32 %37, %38
  store i32 %39, i32* %r6, align 4
  %40 = load i32, i32* %r6, align 4
  %41 = load i32, i32* %r9, align 4
  %42 = icmp sge i32 %40, %41
  br i1 %42, label %L_L__BB0_5, label %L_cm4

L_cm4:                                            ; preds = %L_L__BB0_3
  %43 = load i32, i32* %r6, align 4
  %44 = sext i32 %43 to i64
  %45 = mul i64 %44, 4
  %46 = load i64, i64* %rd2, align 8
  %47 = add i64 %46, %45
  %48 = add i64 %47, %addr_delta
  %49 = inttoptr i64 %48 to i32 addrspace(1)*
  %50 = load i32, i32 addrspace(1)* %49, align 4
  %51 = load i32, i32* %r10, align 4
  %52 = icmp eq i32 %51, 0
  %53 = load i32, i32* %r10, align 4
  %54 = icmp eq i32 %53, -1
  %55 = or i1 %52, %54
  %56 = load i32, i32* %r10, align 4
  %57 = select i1 %55, i32 1, i32 %56
  %58 = srem i32 %50, %57
  %59 = select i1 %54, i32 0, i32 %58
  %60 = select i1 %52, i32 -1, i32 %59
  %61 = shl i32 %60, 2
  %62 = trunc i64 0 to i32
  %63 = add i32 %62, %61
  %64 = zext i32 %63 to i64
  %65 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %64
  %66 = bitcast i8 addrspace(3)* %65 to i32 addrspace(3)*
  %67 = call i32 @air.atomic.local.add.u.i32(i32 addrspace(3)* %66, i32 1, i32 0, i32 1, i1 true)
  br label %L_L__BB0_5

L_L__BB0_5:                                       ; preds = %L_cm4, %L_L__BB0_3
  %68 = load i32, i32* %r28, align 4
  %69 = load i32, i32* %r10, align 4
  %70 = icmp sge i32 %68, %69
  call void @air.wg.barrier(i32 3, i32 1)
  br i1 %70, label %L_L__BB0_8, label %L_cm5

L_cm5:                                            ; preds = %L_L__BB0_5
  %71 = load i64, i64* %rd3, align 8
  store i64 %71, i64* %rd1, align 8
  %72 = trunc i64 0 to i32
  store i32 %72, i32* %r23, align 4
  br label %L_L__BB0_7

L_L__BB0_7:                                       ; preds = %L_L__BB0_7, %L_cm5
  %73 = load i32, i32* %r28, align 4
  %74 = sext i32 %73 to i64
  %75 = mul i64 %74, 4
  %76 = load i64, i64* %rd1, align 8
  %77 = add i64 %76, %75
  %78 = load i32, i32* %r28, align 4
  %79 = shl i32 %78, 2
  %80 = load i32, i32* %r23, align 4
  %81 = add i32 %80, %79
  %82 = zext i32 %81 to i64
  %83 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %82
  %84 = bitcast i8 addrspace(3)* %83 to i32 addrspace(3)*
  %85 = load i32, i32 addrspace(3)* %84, align 4
  %86 = add i64 %77, %addr_delta
  %87 = inttoptr i64 %86 to i32 addrspace(1)*
  %88 = call i32 @air.atomic.global.add.u.i32(i32 addrspace(1)* %87, i32 %85, i32 0, i32 2, i1 true)
  %89 = load i32, i32* %r28, align 4
  %90 = load i32, i32* %r5, align 4
  %91 = add i32 %89, %90
  store i32 %91, i32* %r28, align 4
  %92 = load i32, i32* %r28, align 4
  %93 = load i32, i32* %r10, align 4
  %94 = icmp slt i32 %92, %93
  br i1 %94, label %L_L__BB0_7, label %L_cm6

L_cm6:                                            ; preds = %L_L__BB0_7
  br label %L_L__BB0_8

L_L__BB0_8:                                       ; preds = %L_cm6, %L_L__BB0_5
  ret void
}

; Function Attrs: convergent mustprogress nounwind willreturn
declare void @air.wg.barrier(i32, i32) #1

; Function Attrs: mustprogress nounwind willreturn
declare i32 @air.atomic.local.add.u.i32(i32 addrspace(3)*, i32, i32, i32, i1) #2

; Function Attrs: mustprogress nounwind willreturn
declare i32 @air.atomic.global.add.u.i32(i32 addrspace(1)*, i32, i32, i32, i1) #2

attributes #0 = { convergent mustprogress nounwind "frame-pointer"="all" "min-legal-vector-width"="0" "no-builtins" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { convergent mustprogress nounwind willreturn }
attributes #2 = { mustprogress nounwind willreturn }

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
!15 = !{void (i8 addrspace(1)*, i32 addrspace(1)*, i8 addrspace(3)*, <3 x i32>, <3 x i32>, <3 x i32>, <3 x i32>, i32, i32, i32)* @histogram, !16, !17}
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
