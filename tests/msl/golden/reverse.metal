// ---- kernels

[[max_total_threads_per_threadgroup(128)]]
kernel void reverse(
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
  uint r6_6 = 0;
  ulong rd1_9 = *(device ulong*)(cm.params + 0);  // ld.param.u64
  uint r1_1 = uint(cm.tid.x);  // mov.u32
  ulong v_14 = ulong(r1_1);  // mul.wide.u32
  ulong rd2_10 = ulong(v_14 * 4ul);
  ulong rd3_11 = ulong(rd1_9 + rd2_10);  // add.s64
  uint r2_2 = cm_ld_global<uint>(cm, rd3_11);  // ld.global.u32
  uint r3_3 = uint(r1_1 << 2u);  // shl.b32
  uint r4_4 = uint(0ul);  // mov.u32
  uint r5_5 = uint(r4_4 + r3_3);  // add.u32
  ulong v_21 = ulong(r5_5);  // st.shared.u32
  cm_st_shared<uint>(cm, v_21, r2_2);
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);  // bar.sync
  r6_6 = uint(0x1fcu - r3_3);  // sub.u32
  r6_6 = uint(r4_4 + r6_6);  // add.u32
  ulong v_24 = ulong(r6_6);  // ld.shared.u32
  uint r7_7 = cm_ld_shared<uint>(cm, v_24);
  cm_st_global<uint>(cm, rd3_11, r7_7);  // st.global.u32
  return;
}
