// ---- kernels

kernel void axpy64(
    device uchar* cm_params [[buffer(0)]],
    device uint* cm_info [[buffer(1)]],
    threadgroup uchar* cm_shared [[threadgroup(0)]],
    uint3 cm_tid [[thread_position_in_threadgroup]],
    uint3 cm_ctaid [[threadgroup_position_in_grid]],
    uint3 cm_ntid [[threads_per_threadgroup]],
    uint3 cm_nctaid [[threadgroups_per_grid]],
    uint cm_lane [[thread_index_in_simdgroup]],
    uint cm_warp [[simdgroup_index_in_threadgroup]]) {
  thread ulong cm_localmem[2];
  cm_ctx cm;
  cm.tid = cm_tid; cm.ntid = cm_ntid; cm.ctaid = cm_ctaid; cm.nctaid = cm_nctaid;
  cm.lane = cm_lane; cm.warp = cm_warp;
  cm.params = cm_params; cm.info = cm_info; cm.shared = cm_shared;
  cm.printf_buf = nullptr;
  cm.local = (thread uchar*)cm_localmem; cm.clock = 0; cm.dead = false;
  ulong cm_frame = 0;
  uint r1_1 = 0;
  float2 fd1_3 = float2(0.0f, 0.0f);
  float2 fd2_4 = float2(0.0f, 0.0f);
  float2 fd3_5 = float2(0.0f, 0.0f);
  ulong rd1_7 = 0;
  ulong rd2_8 = 0;
  ulong rd3_9 = 0;
  ulong v_13 = 0;
  float2 v_18 = float2(0.0f, 0.0f);
  bool v_19 = false;
  ulong v_20 = 0;
  ulong v_21 = 0;
  float2 v_22 = float2(0.0f, 0.0f);
  bool v_23 = false;
  float2 v_24 = float2(0.0f, 0.0f);
  ulong v_25 = 0;
  ulong v_26 = 0;
  float2 v_27 = float2(0.0f, 0.0f);
  bool v_28 = false;
  float2 v_29 = float2(0.0f, 0.0f);
  ulong v_30 = 0;
  ulong v_31 = 0;
  float2 v_32 = float2(0.0f, 0.0f);
  bool v_33 = false;
  float2 v_34 = float2(0.0f, 0.0f);
  rd1_7 = *(device ulong*)(cm.params + 0);  // ld.param.u64
  fd1_3 = cm_dd_from_bits(*(device ulong*)(cm.params + 8));  // ld.param.f64
  r1_1 = uint(cm.tid.x);  // mov.u32
  v_13 = ulong(r1_1);  // mul.wide.u32
  rd2_8 = ulong(v_13 * 8ul);
  rd3_9 = ulong(rd1_7 + rd2_8);  // add.s64
  fd2_4 = cm_dd_from_bits(cm_ld_global<ulong>(cm, rd3_9));  // ld.global.f64
  v_18 = cm_dd_fma(fd1_3, fd2_4, fd2_4);  // fma.rn.f64
  v_19 = cm_dd_fcmp(v_18, v_18, 7);
  v_20 = ulong(cm_dd_to_bits(fd1_3));
  v_21 = ulong(v_20 | 0x8000000000000ul);
  v_22 = cm_dd_from_bits(v_21);
  v_23 = cm_dd_fcmp(fd1_3, fd1_3, 7);
  v_24 = (v_23 ? v_22 : cm_dd_from_bits(0xfff8000000000000ul));
  v_25 = ulong(cm_dd_to_bits(fd2_4));
  v_26 = ulong(v_25 | 0x8000000000000ul);
  v_27 = cm_dd_from_bits(v_26);
  v_28 = cm_dd_fcmp(fd2_4, fd2_4, 7);
  v_29 = (v_28 ? v_27 : v_24);
  v_30 = ulong(cm_dd_to_bits(fd2_4));
  v_31 = ulong(v_30 | 0x8000000000000ul);
  v_32 = cm_dd_from_bits(v_31);
  v_33 = cm_dd_fcmp(fd2_4, fd2_4, 7);
  v_34 = (v_33 ? v_32 : v_29);
  fd3_5 = (v_19 ? v_34 : v_18);
  cm_st_global<ulong>(cm, rd3_9, cm_dd_to_bits(fd3_5));  // st.global.f64
  return;
}
