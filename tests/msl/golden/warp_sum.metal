// ---- kernels

kernel void warp_sum(
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
  uint r2_4 = 0;
  float f1_11 = 0.0f;
  ulong rd3_17 = 0;
  uint v_25 = 0;
  bool v_26 = false;
  ulong rd1_15 = *(device ulong*)(cm.params + 0);  // ld.param.u64
  uint r1_3 = uint(cm.tid.x);  // mov.u32
  ulong v_20 = ulong(r1_3);  // mul.wide.u32
  ulong rd2_16 = ulong(v_20 * 4ul);
  rd3_17 = ulong(rd1_15 + rd2_16);  // add.s64
  f1_11 = cm_ld_global<float>(cm, rd3_17);  // ld.global.f32
  r2_4 = 0x10u;  // mov.u32
  while (true) {
    CM_LOOP_TOP(cm);
    uint r3_5 = uint(as_type<uint>(f1_11));  // mov.b32
    {
      uint cm_l = cm.lane, cm_b = r2_4 & 31u, cm_c = 0x1fu;
      uint cm_seg = (cm_c >> 8) & 31u;
      uint cm_max = (cm_l & cm_seg) | (cm_c & 31u & ~cm_seg), cm_min = cm_l & cm_seg;
      int cm_jj = int(cm_l + cm_b);
      bool cm_p = cm_jj <= int(cm_max);
      uint cm_src = cm_p ? uint(cm_jj) : cm_l;
      uint cm_m = 0xffffffffu & uint(ulong(simd_active_threads_mask()));
      uint cm_v = simd_shuffle(r3_5, ushort(cm_src));
      v_25 = (cm_p && ((cm_m >> cm_src) & 1u)) ? cm_v : r3_5;
      v_26 = cm_p;
    }
    float f2_12 = as_type<float>(uint(v_25));  // mov.b32
    float v_31 = (f1_11 + f2_12);  // add.f32
    bool v_32 = cm_fcmp(v_31, v_31, 7);
    f1_11 = (v_32 ? as_type<float>(0x7fffffffu) : v_31);
    r2_4 = uint(r2_4 >> 1u);  // shr.u32
    bool p1_1 = (r2_4 != 0u);  // setp.ne.u32
    if (p1_1) {
      continue;
    } else {
      break;
    }
  }
  CM_LOOP_EXIT(cm);
  cm_st_global<float>(cm, rd3_17, f1_11);  // st.global.f32
  return;
}
