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
  %p1 = alloca i1, align 1
  store i1 false, i1* %p1, align 1
  %r2 = alloca i32, align 4
  store i32 0, i32* %r2, align 4
  %r27 = alloca i32, align 4
  store i32 0, i32* %r27, align 4
  %r11 = alloca i32, align 4
  store i32 0, i32* %r11, align 4
  %r12 = alloca i32, align 4
  store i32 0, i32* %r12, align 4
  %r13 = alloca i32, align 4
  store i32 0, i32* %r13, align 4
  %r14 = alloca i32, align 4
  store i32 0, i32* %r14, align 4
  %v = alloca i64, align 8
  store i64 0, i64* %v, align 8
  %p2 = alloca i1, align 1
  store i1 false, i1* %p2, align 1
  %r5 = alloca i32, align 4
  store i32 0, i32* %r5, align 4
  %r15 = alloca i32, align 4
  store i32 0, i32* %r15, align 4
  %v1 = alloca i32, align 4
  store i32 0, i32* %v1, align 4
  %r6 = alloca i32, align 4
  store i32 0, i32* %r6, align 4
  %p3 = alloca i1, align 1
  store i1 false, i1* %p3, align 1
  %rd4 = alloca i64, align 8
  store i64 0, i64* %rd4, align 8
  %v2 = alloca i64, align 8
  store i64 0, i64* %v2, align 8
  %rd5 = alloca i64, align 8
  store i64 0, i64* %rd5, align 8
  %rd6 = alloca i64, align 8
  store i64 0, i64* %rd6, align 8
  %r16 = alloca i32, align 4
  store i32 0, i32* %r16, align 4
  %r17 = alloca i32, align 4
  store i32 0, i32* %r17, align 4
  %r18 = alloca i32, align 4
  store i32 0, i32* %r18, align 4
  %r19 = alloca i32, align 4
  store i32 0, i32* %r19, align 4
  %r20 = alloca i32, align 4
  store i32 0, i32* %r20, align 4
  %v3 = alloca i64, align 8
  store i64 0, i64* %v3, align 8
  %r21 = alloca i32, align 4
  store i32 0, i32* %r21, align 4
  %p4 = alloca i1, align 1
  store i1 false, i1* %p4, align 1
  %rd1 = alloca i64, align 8
  store i64 0, i64* %rd1, align 8
  %r23 = alloca i32, align 4
  store i32 0, i32* %r23, align 4
  %v4 = alloca i64, align 8
  store i64 0, i64* %v4, align 8
  %rd7 = alloca i64, align 8
  store i64 0, i64* %rd7, align 8
  %rd8 = alloca i64, align 8
  store i64 0, i64* %rd8, align 8
  %r22 = alloca i32, align 4
  store i32 0, i32* %r22, align 4
  %r24 = alloca i32, align 4
  store i32 0, i32* %r24, align 4
  %v5 = alloca i64, align 8
  store i64 0, i64* %v5, align 8
  %r25 = alloca i32, align 4
  store i32 0, i32* %r25, align 4
  %r26 = alloca i32, align 4
  store i32 0, i32* %r26, align 4
  %p5 = alloca i1, align 1
  store i1 false, i1* %p5, align 1
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
  store i1 %18, i1* %p1, align 1
  %19 = load i1, i1* %p1, align 1
  br i1 %19, label %L_L__BB0_1, label %L_cm1

L_cm1:                                            ; preds = %Lentry
  br label %L_L__BB0_3

L_L__BB0_1:                                       ; preds = %Lentry
  %20 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %20, i32* %r2, align 4
  %21 = load i32, i32* %r28, align 4
  store i32 %21, i32* %r27, align 4
  br label %L_L__BB0_2

L_L__BB0_2:                                       ; preds = %L_L__BB0_2, %L_L__BB0_1
  %22 = load i32, i32* %r27, align 4
  %23 = icmp uge i32 2, 32
  %24 = select i1 %23, i32 0, i32 2
  %25 = shl i32 %22, %24
  %26 = select i1 %23, i32 0, i32 %25
  store i32 %26, i32* %r11, align 4
  %27 = trunc i64 0 to i32
  store i32 %27, i32* %r12, align 4
  %28 = load i32, i32* %r12, align 4
  %29 = load i32, i32* %r11, align 4
  %30 = add i32 %28, %29
  store i32 %30, i32* %r13, align 4
  store i32 0, i32* %r14, align 4
  %31 = load i32, i32* %r13, align 4
  %32 = zext i32 %31 to i64
  store i64 %32, i64* %v, align 8
  %33 = load i64, i64* %v, align 8
  %34 = load i32, i32* %r14, align 4
  %35 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %33
  %36 = bitcast i8 addrspace(3)* %35 to i32 addrspace(3)*
  store i32 %34, i32 addrspace(3)* %36, align 4
  %37 = load i32, i32* %r27, align 4
  %38 = load i32, i32* %r2, align 4
  %39 = add i32 %37, %38
  store i32 %39, i32* %r27, align 4
  %40 = load i32, i32* %r27, align 4
  %41 = load i32, i32* %r10, align 4
  %42 = icmp slt i32 %40, %41
  store i1 %42, i1* %p2, align 1
  %43 = load i1, i1* %p2, align 1
  br i1 %43, label %L_L__BB0_2, label %L_cm3

L_cm3:                                            ; preds = %L_L__BB0_2
  br label %L_L__BB0_3

L_L__BB0_3:                                       ; preds = %L_cm3, %L_cm1
  %44 = extractelement <3 x i32> %cm_ntid, i32 0
  store i32 %44, i32* %r5, align 4
  call void @air.wg.barrier(i32 3, i32 1)
  %45 = extractelement <3 x i32> %cm_ctaid, i32 0
  store i32 %45, i32* %r15, align 4
  %46 = load i32, i32* %r15, align 4
  %47 = load i32, i32* %r5, align 4
  %48 = mul i32 %46, %47
  store i32 %48, i32* %v1, align 4
  %49 = load i32, i32* %v1, align 4
  %50 = load i32, i32* %r28, align 4
  %51 = add i32 %49, %50
  store i32 %51, i32* %r6, align 4
  %52 = load i32, i32* %r6, align 4
  %53 = load i32, i32* %r9, align 4
  %54 = icmp sge i32 %52, %53
  store i1 %54, i1* %p3, align 1
  %55 = load i1, i1* %p3, align 1
  br i1 %55, label %L_L__BB0_5, label %L_cm4

L_cm4:                                            ; preds = %L_L__BB0_3
  %56 = load i64, i64* %rd2, align 8
  store i64 %56, i64* %rd4, align 8
  %57 = load i32, i32* %r6, align 4
  %58 = sext i32 %57 to i64
  store i64 %58, i64* %v2, align 8
  %59 = load i64, i64* %v2, align 8
  %60 = mul i64 %59, 4
  store i64 %60, i64* %rd5, align 8
  %61 = load i64, i64* %rd4, align 8
  %62 = load i64, i64* %rd5, align 8
  %63 = add i64 %61, %62
  store i64 %63, i64* %rd6, align 8
  %64 = load i64, i64* %rd6, align 8
  %65 = add i64 %64, %addr_delta
  %66 = inttoptr i64 %65 to i32 addrspace(1)*
  %67 = load i32, i32 addrspace(1)* %66, align 4
  store i32 %67, i32* %r16, align 4
  %68 = load i32, i32* %r16, align 4
  %69 = load i32, i32* %r10, align 4
  %70 = icmp eq i32 %69, 0
  %71 = icmp eq i32 %69, -1
  %72 = or i1 %70, %71
  %73 = select i1 %72, i32 1, i32 %69
  %74 = srem i32 %68, %73
  %75 = select i1 %71, i32 0, i32 %74
  %76 = select i1 %70, i32 -1, i32 %75
  store i32 %76, i32* %r17, align 4
  %77 = load i32, i32* %r17, align 4
  %78 = icmp uge i32 2, 32
  %79 = select i1 %78, i32 0, i32 2
  %80 = shl i32 %77, %79
  %81 = select i1 %78, i32 0, i32 %80
  store i32 %81, i32* %r18, align 4
  %82 = trunc i64 0 to i32
  store i32 %82, i32* %r19, align 4
  %83 = load i32, i32* %r19, align 4
  %84 = load i32, i32* %r18, align 4
  %85 = add i32 %83, %84
  store i32 %85, i32* %r20, align 4
  %86 = load i32, i32* %r20, align 4
  %87 = zext i32 %86 to i64
  store i64 %87, i64* %v3, align 8
  %88 = load i64, i64* %v3, align 8
  %89 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %88
  %90 = bitcast i8 addrspace(3)* %89 to i32 addrspace(3)*
  %91 = call i32 @air.atomic.local.add.u.i32(i32 addrspace(3)* %90, i32 1, i32 0, i32 1, i1 true)
  store i32 %91, i32* %r21, align 4
  br label %L_L__BB0_5

L_L__BB0_5:                                       ; preds = %L_cm4, %L_L__BB0_3
  %92 = load i32, i32* %r28, align 4
  %93 = load i32, i32* %r10, align 4
  %94 = icmp sge i32 %92, %93
  store i1 %94, i1* %p4, align 1
  call void @air.wg.barrier(i32 3, i32 1)
  %95 = load i1, i1* %p4, align 1
  br i1 %95, label %L_L__BB0_8, label %L_cm5

L_cm5:                                            ; preds = %L_L__BB0_5
  %96 = load i64, i64* %rd3, align 8
  store i64 %96, i64* %rd1, align 8
  %97 = trunc i64 0 to i32
  store i32 %97, i32* %r23, align 4
  br label %L_L__BB0_7

L_L__BB0_7:                                       ; preds = %L_L__BB0_7, %L_cm5
  %98 = load i32, i32* %r28, align 4
  %99 = sext i32 %98 to i64
  store i64 %99, i64* %v4, align 8
  %100 = load i64, i64* %v4, align 8
  %101 = mul i64 %100, 4
  store i64 %101, i64* %rd7, align 8
  %102 = load i64, i64* %rd1, align 8
  %103 = load i64, i64* %rd7, align 8
  %104 = add i64 %102, %103
  store i64 %104, i64* %rd8, align 8
  %105 = load i32, i32* %r28, align 4
  %106 = icmp uge i32 2, 32
  %107 = select i1 %106, i32 0, i32 2
  %108 = shl i32 %105, %107
  %109 = select i1 %106, i32 0, i32 %108
  store i32 %109, i32* %r22, align 4
  %110 = load i32, i32* %r23, align 4
  %111 = load i32, i32* %r22, align 4
  %112 = add i32 %110, %111
  store i32 %112, i32* %r24, align 4
  %113 = load i32, i32* %r24, align 4
  %114 = zext i32 %113 to i64
  store i64 %114, i64* %v5, align 8
  %115 = load i64, i64* %v5, align 8
  %116 = getelementptr [1024 x i8], [1024 x i8] addrspace(3)* @cm_static_shared, i64 0, i64 %115
  %117 = bitcast i8 addrspace(3)* %116 to i32 addrspace(3)*
  %118 = load i32, i32 addrspace(3)* %117, align 4
  store i32 %118, i32* %r25, align 4
  %119 = load i64, i64* %rd8, align 8
  %120 = load i32, i32* %r25, align 4
  %121 = add i64 %119, %addr_delta
  %122 = inttoptr i64 %121 to i32 addrspace(1)*
  %123 = call i32 @air.atomic.global.add.u.i32(i32 addrspace(1)* %122, i32 %120, i32 0, i32 2, i1 true)
  store i32 %123, i32* %r26, align 4
  %124 = load i32, i32* %r28, align 4
  %125 = load i32, i32* %r5, align 4
  %126 = add i32 %124, %125
  store i32 %126, i32* %r28, align 4
  %127 = load i32, i32* %r28, align 4
  %128 = load i32, i32* %r10, align 4
  %129 = icmp slt i32 %127, %128
  store i1 %129, i1* %p5, align 1
  %130 = load i1, i1* %p5, align 1
  br i1 %130, label %L_L__BB0_7, label %L_cm6

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
