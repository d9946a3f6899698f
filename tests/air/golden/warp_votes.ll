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
  br label %Lentry

Lentry:                                           ; preds = %entry
  %3 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 0
  %4 = bitcast i8 addrspace(1)* %3 to i64 addrspace(1)*
  %5 = load i64, i64 addrspace(1)* %4, align 8
  %6 = getelementptr i8, i8 addrspace(1)* %cm_params, i64 8
  %7 = bitcast i8 addrspace(1)* %6 to i64 addrspace(1)*
  %8 = load i64, i64 addrspace(1)* %7, align 8
  %9 = extractelement <3 x i32> %cm_ctaid, i32 0
  %10 = extractelement <3 x i32> %cm_ntid, i32 0
  %11 = extractelement <3 x i32> %cm_tid, i32 0
  %12 = mul i32 %9, %10
  %13 = add i32 %12, %11
  %14 = sext i32 %13 to i64
  %15 = mul i64 %14, 4
  %16 = add i64 %5, %15
  %17 = add i64 %16, %addr_delta
  %18 = inttoptr i64 %17 to i32 addrspace(1)*
  %19 = load i32, i32 addrspace(1)* %18, align 4
  %20 = icmp sgt i32 %19, 0
  %21 = shl i32 1, %cm_lane
  %22 = call i32 @air.simd_sum.u.i32(i32 %21)
  %23 = and i32 -1, %22
  %24 = shl i32 1, %cm_lane
  %25 = select i1 %20, i32 %24, i32 0
  %26 = call i32 @air.simd_sum.u.i32(i32 %25)
  %27 = and i32 %26, %23
  %28 = icmp sgt i32 %19, 50
  %29 = shl i32 1, %cm_lane
  %30 = call i32 @air.simd_sum.u.i32(i32 %29)
  %31 = and i32 -1, %30
  %32 = shl i32 1, %cm_lane
  %33 = select i1 %28, i32 %32, i32 0
  %34 = call i32 @air.simd_sum.u.i32(i32 %33)
  %35 = and i32 %34, %31
  %36 = icmp ne i32 %35, 0
  %37 = select i1 %36, i32 1, i32 0
  %38 = icmp sgt i32 %19, -1
  %39 = shl i32 1, %cm_lane
  %40 = call i32 @air.simd_sum.u.i32(i32 %39)
  %41 = and i32 -1, %40
  %42 = shl i32 1, %cm_lane
  %43 = select i1 %38, i32 %42, i32 0
  %44 = call i32 @air.simd_sum.u.i32(i32 %43)
  %45 = and i32 %44, %41
  %46 = icmp eq i32 %45, %41
  %47 = select i1 %46, i32 1, i32 0
  %48 = shl i32 1, %cm_lane
  %49 = call i32 @air.simd_sum.u.i32(i32 %48)
  %50 = shl i32 %13, 2
  %51 = sext i32 %50 to i64
  %52 = mul i64 %51, 4
  %53 = add i64 %8, %52
  %54 = add i64 %53, %addr_delta
  %55 = inttoptr i64 %54 to i32 addrspace(1)*
  store i32 %27, i32 addrspace(1)* %55, align 4
  %56 = add i64 %53, 4
  %57 = add i64 %56, %addr_delta
  %58 = inttoptr i64 %57 to i32 addrspace(1)*
  store i32 %37, i32 addrspace(1)* %58, align 4
  %59 = add i64 %53, 8
  %60 = add i64 %59, %addr_delta
  %61 = inttoptr i64 %60 to i32 addrspace(1)*
  store i32 %47, i32 addrspace(1)* %61, align 4
  %62 = add i64 %53, 12
  %63 = add i64 %62, %addr_delta
  %64 = inttoptr i64 %63 to i32 addrspace(1)*
  store i32 %49, i32 addrspace(1)* %64, align 4
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
