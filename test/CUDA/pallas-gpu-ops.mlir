// The pallas_gpu ops print and parse back; malformed ones are rejected.
// RUN: pallas-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tt.func @ring_ops
// CHECK: %[[R:.*]] = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
// CHECK: pallas_gpu.async_copy %{{.*}} into %[[R]][%{{.*}}] mask %{{.*}} if %{{.*}} : tensor<16x16x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<16x16xf16>>, tensor<16x16xi1>
// CHECK: pallas_gpu.async_commit
// CHECK: pallas_gpu.async_wait 1
// CHECK: pallas_gpu.ring_read %[[R]][%{{.*}}] : !pallas_gpu.ring<2, tensor<16x16xf16>> -> tensor<16x16xf16>
tt.func @ring_ops(%p: tensor<16x16x!tt.ptr<f16>>, %m: tensor<16x16xi1>, %s: i32, %c: i1) {
  %r = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
  pallas_gpu.async_copy %p into %r[%s] mask %m if %c : tensor<16x16x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<16x16xf16>>, tensor<16x16xi1>
  pallas_gpu.async_commit
  pallas_gpu.async_wait 1
  %t = pallas_gpu.ring_read %r[%s] : !pallas_gpu.ring<2, tensor<16x16xf16>> -> tensor<16x16xf16>
  tt.return
}

// -----

tt.func @copy_wrong_tile(%p: tensor<16x8x!tt.ptr<f16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
  // expected-error @+1 {{copies 'tensor<16x8x!tt.ptr<f16>>' into a ring of 'tensor<16x16xf16>'}}
  pallas_gpu.async_copy %p into %r[%s] : tensor<16x8x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<16x16xf16>>
  tt.return
}

// -----

tt.func @copy_wrong_mask(%p: tensor<16x16x!tt.ptr<f16>>, %m: tensor<16xi1>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
  // expected-error @+1 {{mask shape differs from the tile's}}
  pallas_gpu.async_copy %p into %r[%s] mask %m : tensor<16x16x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<16x16xf16>>, tensor<16xi1>
  tt.return
}

// -----

tt.func @read_wrong_type(%s: i32) {
  %r = pallas_gpu.alloc_ring : <2, tensor<16x16xf16>>
  // expected-error @+1 {{reads 'tensor<16x16xf32>' from a ring of 'tensor<16x16xf16>'}}
  %t = pallas_gpu.ring_read %r[%s] : !pallas_gpu.ring<2, tensor<16x16xf16>> -> tensor<16x16xf32>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @swizzled_ring
// CHECK: pallas_gpu.alloc_ring : <3, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
tt.func @swizzled_ring(%p: tensor<64x64x!tt.ptr<bf16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <3, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  pallas_gpu.async_copy %p into %r[%s] : tensor<64x64x!tt.ptr<bf16>>, !pallas_gpu.ring<3, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>>
  %t = pallas_gpu.ring_read %r[%s] : !pallas_gpu.ring<3, tensor<64x64xbf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<64x64xbf16>
  tt.return
}

// -----

tt.func @swizzle_short_rows() {
  // expected-error @+1 {{the 128-byte swizzle needs rows of a multiple of 128 bytes and a multiple of 8 rows, not 'tensor<64x32xbf16, #pallas_gpu.shared<swizzle_128b>>'}}
  %r = pallas_gpu.alloc_ring : <3, tensor<64x32xbf16, #pallas_gpu.shared<swizzle_128b>>>
  tt.return
}

// -----

tt.func @ring_of_register_layout() {
  // expected-error @+1 {{a ring's tile is encoded with #pallas_gpu.shared, not #pallas_gpu.wgmma<warps = 4>}}
  %r = pallas_gpu.alloc_ring : <3, tensor<64x64xbf16, #pallas_gpu.wgmma<warps = 4>>>
  tt.return
}

// -----

tt.func @ring_of_vectors() {
  // expected-error @+1 {{a ring holds 2-d tiles, not 'tensor<64xbf16>'}}
  %r = pallas_gpu.alloc_ring : <2, tensor<64xbf16>>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @row_slice
// CHECK-SAME: tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>>
tt.func @row_slice(%x: tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.wgmma<warps = 4>>>) {
  tt.return
}

// -----

// expected-error @+1 {{only row slices (dim = 1) are supported}}
tt.func @column_slice(%x: tensor<64xf32, #pallas_gpu.slice<dim = 0, parent = #pallas_gpu.wgmma<warps = 4>>>) {
  tt.return
}

// -----

// expected-error @+1 {{the parent of a slice is a #pallas_gpu.wgmma or a #pallas_gpu.mma<warps = [WM, 1]>, not #pallas_gpu.mma<warps = [2, 2]>}}
tt.func @split_rows(%x: tensor<64xf32, #pallas_gpu.slice<dim = 1, parent = #pallas_gpu.mma<warps = [2, 2]>>>) {
  tt.return
}

// -----

// The ops of kernels that schedule their own copies (Pallas:MGPU).
// CHECK-LABEL: tt.func @user_schedule_ops
// CHECK: %[[B:.*]] = pallas_gpu.alloc_mbarriers : !pallas_gpu.mbarriers<2, arrivals = 2>
// CHECK: pallas_gpu.tma_load %{{.*}} at %{{.*}} into %[[R:.*]][%{{.*}}] signal %[[B]][%{{.*}}] {tensor_map = 0 : i64}
// CHECK: pallas_gpu.mbarrier_wait %[[B]][%{{.*}}] phase %{{.*}} : !pallas_gpu.mbarriers<2, arrivals = 2>
// CHECK: pallas_gpu.mbarrier_arrive %[[B]][%{{.*}}] :
// CHECK: pallas_gpu.mbarrier_arrive %[[B]][%{{.*}}] per_warp
// CHECK: pallas_gpu.ring_write %{{.*}} into %[[R]][%{{.*}}] : tensor<64x64xf16>
// CHECK: pallas_gpu.ring_read %[[W:.*]][%{{.*}}] cols %{{.*}} : !pallas_gpu.ring<1, tensor<64x256xf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<64x128xf16>
// CHECK: pallas_gpu.warpgroup_id
// CHECK: pallas_gpu.set_max_registers 232 increase
// CHECK: pallas_gpu.set_max_registers 40

// CHECK: pallas_gpu.commit_smem
// CHECK: pallas_gpu.tma_store_buffer %[[R]][%{{.*}}] to %{{.*}} at %{{.*}} {tensor_map = 1 : i64}
// CHECK: pallas_gpu.bulk_commit
// CHECK: pallas_gpu.bulk_wait 0 read
tt.func @user_schedule_ops(%p: tensor<64x64x!tt.ptr<f16>>, %v: tensor<64x64xf16>, %s: i32,
                           %ph: i32) {
  %r = pallas_gpu.alloc_ring : <2, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  %b = pallas_gpu.alloc_mbarriers : !pallas_gpu.mbarriers<2, arrivals = 2>
  pallas_gpu.tma_load %p at %s into %r[%s] signal %b[%s] {tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>, !pallas_gpu.mbarriers<2, arrivals = 2>
  pallas_gpu.mbarrier_wait %b[%s] phase %ph : !pallas_gpu.mbarriers<2, arrivals = 2>
  pallas_gpu.mbarrier_arrive %b[%s] : !pallas_gpu.mbarriers<2, arrivals = 2>
  pallas_gpu.mbarrier_arrive %b[%s] per_warp : !pallas_gpu.mbarriers<2, arrivals = 2>
  pallas_gpu.ring_write %v into %r[%s] : tensor<64x64xf16>, !pallas_gpu.ring<2, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  %w = pallas_gpu.alloc_ring : <1, tensor<64x256xf16, #pallas_gpu.shared<swizzle_128b>>>
  %cols = pallas_gpu.ring_read %w[%s] cols %s : !pallas_gpu.ring<1, tensor<64x256xf16, #pallas_gpu.shared<swizzle_128b>>> -> tensor<64x128xf16>
  %wg = pallas_gpu.warpgroup_id
  pallas_gpu.set_max_registers 232 increase
  pallas_gpu.set_max_registers 40
  pallas_gpu.commit_smem
  pallas_gpu.tma_store_buffer %r[%s] to %p at %s {tensor_map = 1 : i64} : !pallas_gpu.ring<2, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>, tensor<64x64x!tt.ptr<f16>>
  pallas_gpu.bulk_commit
  pallas_gpu.bulk_wait 0 read
  tt.return
}

// -----

// Tiles no wgmma reads: dense rows (a TMA store of rows from some row on)
// and the 64-byte swizzle; the tensor maps say which swizzle they copy with.
// CHECK-LABEL: tt.func @unswizzled_and_64b_tiles
// CHECK-SAME: pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 256, row_elements = 128, elem_bytes = 2, box_rows = 8, box_cols = 128, swizzle_bytes = 0>, #pallas_gpu.tensor_map<param = 1, rows = 256, row_elements = 64, elem_bytes = 1, box_rows = 64, box_cols = 64, swizzle_bytes = 64>, #pallas_gpu.tensor_map<param = 1, rows = 256, row_elements = 128, elem_bytes = 1, box_rows = 64, box_cols = 128>]
// CHECK: %[[D:.*]] = pallas_gpu.alloc_ring : <1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>
// CHECK: pallas_gpu.tma_store_buffer %[[D]][%{{.*}}] rows from %{{.*}} to %{{.*}} at %{{.*}} {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>, tensor<8x128x!tt.ptr<f16>>
// CHECK: pallas_gpu.alloc_ring : <2, tensor<64x64xi8, #pallas_gpu.shared<swizzle_64b>>>
tt.func @unswizzled_and_64b_tiles(%p: tensor<8x128x!tt.ptr<f16>>, %q: tensor<64x64x!tt.ptr<i8>>,
                                  %s: i32) attributes {pallas_gpu.tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 256, row_elements = 128, elem_bytes = 2, box_rows = 8, box_cols = 128, swizzle_bytes = 0>, #pallas_gpu.tensor_map<param = 1, rows = 256, row_elements = 64, elem_bytes = 1, box_rows = 64, box_cols = 64, swizzle_bytes = 64>, #pallas_gpu.tensor_map<param = 1, rows = 256, row_elements = 128, elem_bytes = 1, box_rows = 64, box_cols = 128, swizzle_bytes = 128>]} {
  %d = pallas_gpu.alloc_ring : <1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>
  pallas_gpu.tma_store_buffer %d[%s] rows from %s to %p at %s {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>, tensor<8x128x!tt.ptr<f16>>
  %a = pallas_gpu.alloc_ring : <2, tensor<64x64xi8, #pallas_gpu.shared<swizzle_64b>>>
  %b = pallas_gpu.alloc_mbarriers : !pallas_gpu.mbarriers<2, arrivals = 1>
  pallas_gpu.tma_load %q at %s into %a[%s] signal %b[%s] {tensor_map = 1 : i64} : tensor<64x64x!tt.ptr<i8>>, !pallas_gpu.ring<2, tensor<64x64xi8, #pallas_gpu.shared<swizzle_64b>>>, !pallas_gpu.mbarriers<2, arrivals = 1>
  tt.return
}

// -----

tt.func @rows_of_swizzled(%p: tensor<8x64x!tt.ptr<f16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  // expected-error @+1 {{copies rows from some row on of a tile with dense rows only, not 'tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>'}}
  pallas_gpu.tma_store_buffer %r[%s] rows from %s to %p at %s {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>, tensor<8x64x!tt.ptr<f16>>
  tt.return
}

// -----

tt.func @rows_too_many(%p: tensor<72x128x!tt.ptr<f16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>
  // expected-error @+1 {{copies 'tensor<72x128x!tt.ptr<f16>>' to or from a ring of 'tensor<64x128xf16, #pallas_gpu.shared<row_major>>'}}
  pallas_gpu.tma_store_buffer %r[%s] rows from %s to %p at %s {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<64x128xf16, #pallas_gpu.shared<row_major>>>, tensor<72x128x!tt.ptr<f16>>
  tt.return
}

// -----

tt.func @dense_rows_too_wide(%p: tensor<8x512x!tt.ptr<i8>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<8x512xi8, #pallas_gpu.shared<row_major>>>
  // expected-error @+1 {{copies with the TMA tiles of dense rows of a multiple of 16 bytes and at most 256 elements, at most 256 rows, not 'tensor<8x512xi8, #pallas_gpu.shared<row_major>>'}}
  pallas_gpu.tma_store_buffer %r[%s] to %p at %s {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<8x512xi8, #pallas_gpu.shared<row_major>>>, tensor<8x512x!tt.ptr<i8>>
  tt.return
}

// -----

// expected-error @+1 {{the 64-byte swizzle needs rows of a multiple of 64 bytes and a multiple of 8 rows, not 'tensor<64x32xi8, #pallas_gpu.shared<swizzle_64b>>'}}
tt.func @swizzle_64b_narrow(%r: !pallas_gpu.ring<1, tensor<64x32xi8, #pallas_gpu.shared<swizzle_64b>>>) {
  tt.return
}

// -----

// expected-error @+1 {{mbarrier arrivals must be from 1 to 2^20 - 1, got 0}}
tt.func @no_arrivals(%b: !pallas_gpu.mbarriers<2, arrivals = 0>) {
  tt.return
}

// -----

tt.func @tma_unswizzled(%p: tensor<64x64x!tt.ptr<f16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <2, tensor<64x64xf16>>
  %b = pallas_gpu.alloc_mbarriers : !pallas_gpu.mbarriers<2, arrivals = 1>
  // expected-error @+1 {{copies with the TMA into or out of tiles with the 128- or 64-byte swizzle or dense rows only, not 'tensor<64x64xf16>'}}
  pallas_gpu.tma_load %p at %s into %r[%s] signal %b[%s] {tensor_map = 0 : i64} : tensor<64x64x!tt.ptr<f16>>, !pallas_gpu.ring<2, tensor<64x64xf16>>, !pallas_gpu.mbarriers<2, arrivals = 1>
  tt.return
}

// -----

tt.func @tma_store_wrong_tile(%p: tensor<64x32x!tt.ptr<f16>>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  // expected-error @+1 {{copies 'tensor<64x32x!tt.ptr<f16>>' to or from a ring of 'tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>'}}
  pallas_gpu.tma_store_buffer %r[%s] to %p at %s {tensor_map = 0 : i64} : !pallas_gpu.ring<1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>, tensor<64x32x!tt.ptr<f16>>
  tt.return
}

// -----

tt.func @write_wrong_tile(%v: tensor<64x64xf32>, %s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  // expected-error @+1 {{writes 'tensor<64x64xf32>' into a ring of 'tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>'}}
  pallas_gpu.ring_write %v into %r[%s] : tensor<64x64xf32>, !pallas_gpu.ring<1, tensor<64x64xf16, #pallas_gpu.shared<swizzle_128b>>>
  tt.return
}

// -----

tt.func @column_read_unswizzled(%s: i32) {
  %r = pallas_gpu.alloc_ring : <1, tensor<64x256xf16>>
  // expected-error @+1 {{reads columns 'tensor<64x128xf16>' of a ring of 'tensor<64x256xf16>'; a column read takes whole atom columns of a 128-byte-swizzled tile}}
  %c = pallas_gpu.ring_read %r[%s] cols %s : !pallas_gpu.ring<1, tensor<64x256xf16>> -> tensor<64x128xf16>
  tt.return
}

// -----

// CHECK-LABEL: tt.func @own_registers
// CHECK: pallas_gpu.own_registers %{{.*}} : tensor<64x64xf32>
tt.func @own_registers(%t: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = pallas_gpu.own_registers %t : tensor<64x64xf32>
  tt.return %r : tensor<64x64xf32>
}

// -----

tt.func @own_registers_of_another_type(%t: tensor<64x64xf32>) {
  // expected-error @below {{all of {source, result} have same type}}
  %r = "pallas_gpu.own_registers"(%t) : (tensor<64x64xf32>) -> tensor<64x64xf16>
  tt.return
}
