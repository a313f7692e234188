// RUN: pallas-opt %s -convert-pallas-to-mosaic -split-input-file | FileCheck %s

// Blocks stay blocks: one VMEM memref each (the squeezed vmap dim kept as 1),
// grid indices first, scratch last; index maps become @transform_i; a whole
// array at block 0 is single-buffered. Program ids skip the vmap axis.
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME: %[[B:[^:]*]]: i32, %[[I:[^:]*]]: i32, %[[K:[^:]*]]: i32,
// CHECK-SAME: %[[X:[^:]*]]: memref<1x256x512xbf16, #tpu.memory_space<vmem>>, %[[Y:[^:]*]]: memref<512x128xbf16, #tpu.memory_space<vmem>>,
// CHECK-SAME: %[[Z:[^:]*]]: memref<1x256x128xf32, #tpu.memory_space<vmem>>, %[[ACC:[^:]*]]: memref<256x128xf32, #tpu.memory_space<vmem>>)
// CHECK-SAME: dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>]
// CHECK-SAME: iteration_bounds = array<i64: 4, 4, 3>, scalar_prefetch = 0 : i64, scratch_operands = 1 : i64, tpu.core_type = #tpu.core_type<tc>
// CHECK-SAME: window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 1, 256, 512>},
// CHECK-SAME: {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_1, window_bounds = array<i64: 512, 128>},
// CHECK-SAME: {transform_indices = @transform_2, window_bounds = array<i64: 1, 256, 128>}]
// CHECK: %[[XV:.*]] = vector.load %[[X]][{{.*}}] : memref<1x256x512xbf16, #tpu.memory_space<vmem>>, vector<1x256x512xbf16>
// CHECK: %[[A:.*]] = vector.shape_cast %[[XV]] : vector<1x256x512xbf16> to vector<256x512xbf16>
// CHECK: %[[BV:.*]] = vector.load %[[Y]]
// CHECK: %[[OLD:.*]] = vector.load %[[ACC]]
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<256x128xf32>
// CHECK: %[[P:.*]] = tpu.matmul %[[A]], %[[BV]], %[[ZERO]] {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : vector<256x512xbf16>, vector<512x128xbf16>, vector<256x128xf32> -> vector<256x128xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[P]] : vector<256x128xf32>
// CHECK: vector.load %[[ACC]]
// CHECK: tpu.vector_store %[[ACC]][{{.*}}], %[[SUM]] {strides = array<i32>}
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: %[[ROW:.*]] = vector.load %[[ACC]][%[[KI]], %{{.*}}] : memref<256x128xf32, #tpu.memory_space<vmem>>, vector<8x128xf32>
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : vector<8xf32>
// CHECK: %[[M:.*]] = vector.multi_reduction <maximumf>, %[[ROW]], %[[NINF]] [1] : vector<8x128xf32> to vector<8xf32>
// CHECK: %[[M1:.*]] = vector.shape_cast %[[M]] : vector<8xf32> to vector<8x1xf32>
// CHECK: vector.broadcast %[[M1]] : vector<8x1xf32> to vector<8x128xf32>
// CHECK: %[[R3:.*]] = vector.shape_cast %[[ROW]] : vector<8x128xf32> to vector<1x8x128xf32>
// CHECK: %[[S:.*]] = vector.multi_reduction <add>, %[[R3]], %{{.*}} [1, 2] : vector<1x8x128xf32> to vector<1xf32>
// CHECK: %[[S3:.*]] = vector.shape_cast %[[S]] : vector<1xf32> to vector<1x1x1xf32>
// CHECK: %[[SF:.*]] = vector.extract %[[S3]][0, 0, 0] : f32 from vector<1x1x1xf32>
// CHECK: vector.broadcast %[[SF]] : f32 to vector<8x128xf32>
// CHECK: tpu.iota {dimensions = array<i32: 1>} : vector<8x128xi32>
// CHECK: arith.sitofp {{.*}} : vector<8x128xi32> to vector<8x128xf32>
// CHECK: %[[OUT:.*]] = vector.shape_cast %{{.*}} : vector<8x128xf32> to vector<1x8x128xf32>
// CHECK: tpu.vector_store %[[Z]][{{.*}}], %[[OUT]] {strides = array<i32>} : memref<1x256x128xf32, #tpu.memory_space<vmem>>, vector<1x8x128xf32>
// CHECK: func.func @transform_0(%[[TB:.*]]: i32, %[[TI:.*]]: i32, %[[TK:.*]]: i32) -> (i32, i32, i32)
// CHECK: %[[D:.*]] = arith.floordivsi %[[TI]], %{{.*}} : i32
// CHECK: arith.remsi %[[TK]]
// CHECK: return %[[TB]], %[[D]], %{{.*}} : i32, i32, i32
// CHECK: func.func @transform_1(
// CHECK: return %{{.*}}, %{{.*}} : i32, i32
// CHECK: func.func @transform_2(%[[UB:.*]]: i32, %[[UI:.*]]: i32, %{{.*}}: i32) -> (i32, i32, i32)
// CHECK: return %[[UB]], %[[UI]], %{{.*}} : i32, i32, i32
pallas.kernel @blocks(%x: !pallas.ref<256x512xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 1024, 512], block = [1, 256, 512], squeezed = [0], index_map = affine_map<(b, i, k) -> (b, i floordiv 2, k mod 3)>>},
                      %y: !pallas.ref<512x128xbf16> {pallas.block_spec = #pallas.block_spec<input, shape = [512, 128], block = [512, 128], index_map = affine_map<(b, i, k) -> (0, 0)>>},
                      %z: !pallas.ref<256x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [4, 1024, 128], block = [1, 256, 128], squeezed = [0], index_map = affine_map<(b, i, k) -> (b, i, 0)>>},
                      %acc: !pallas.ref<256x128xf32, vmem> {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "blocks", grid = [4, 4, 3], dimension_semantics = [parallel, parallel, arbitrary], batch_axes = 1>} {
  %k = pallas.program_id 1 : i32
  %nk = pallas.num_programs 1 : i32
  %a = pallas.load %x[...] : !pallas.ref<256x512xbf16> -> tensor<256x512xbf16>
  %b = pallas.load %y[...] : !pallas.ref<512x128xbf16> -> tensor<512x128xbf16>
  %old = pallas.load %acc[...] : !pallas.ref<256x128xf32, vmem> -> tensor<256x128xf32>
  %d = pallas.dot %a, %b acc %old : tensor<256x512xbf16>, tensor<512x128xbf16>, tensor<256x128xf32> -> tensor<256x128xf32>
  pallas.store %acc[...], %d : !pallas.ref<256x128xf32, vmem>, tensor<256x128xf32>
  %row = pallas.load %acc[ds(%k, 8), :] : !pallas.ref<256x128xf32, vmem> -> tensor<8x128xf32>
  %m = pallas.reduce max %row [1] : tensor<8x128xf32> -> tensor<8xf32>
  %mb = pallas.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x128xf32>
  %s = pallas.reduce sum %row [0, 1] : tensor<8x128xf32> -> f32
  %sb = pallas.broadcast %s : f32 -> tensor<8x128xf32>
  %io = pallas.iota 1 : tensor<8x128xi32>
  %iof = arith.sitofp %io : tensor<8x128xi32> to tensor<8x128xf32>
  %e = arith.addf %mb, %sb : tensor<8x128xf32>
  %f = arith.addf %e, %iof : tensor<8x128xf32>
  pallas.store %z[ds(0, 8), :], %f : !pallas.ref<256x128xf32>, tensor<8x128xf32>
  pallas.return
}

// -----

// Scalar prefetch in SMEM (read with memref.load, in the kernel and in the
// transform built from the "@fn" index function); an `any` array has empty
// window params and is reached by DMA; ref_slice and copies become
// tpu.memref_slice (squeezed for the DMA); run_scoped a tpu.region with its
// allocations; semaphores tpu.sem_*.
// CHECK-LABEL: func.func @copies(
// CHECK-SAME: %[[I:[^:]*]]: i32, %[[ROWS:[^:]*]]: memref<8xi32, #tpu.memory_space<smem>>, %[[X:[^:]*]]: memref<4x64x128xf32, #tpu.memory_space<any>>,
// CHECK-SAME: %[[Y:[^:]*]]: memref<8x128xf32, #tpu.memory_space<vmem>>, %[[O:[^:]*]]: memref<8x128xf32, #tpu.memory_space<vmem>>, %[[SEM:[^:]*]]: memref<!tpu.semaphore, #tpu.memory_space<semaphore_mem>>)
// CHECK-SAME: dimension_semantics = [#tpu.dimension_semantics<arbitrary>]
// CHECK-SAME: scalar_prefetch = 1 : i64, scratch_operands = 1 : i64
// CHECK-SAME: window_params = [{}, {transform_indices = @transform_1, window_bounds = array<i64: 8, 128>}, {transform_indices = @transform_2, window_bounds = array<i64: 8, 128>}]
// CHECK: %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: %[[R:.*]] = memref.load %[[ROWS]][%[[II]]] : memref<8xi32, #tpu.memory_space<smem>>
// CHECK: %[[PLANE:.*]] = tpu.memref_slice %[[X]][%[[R]], %{{.*}}, %{{.*}}] : memref<4x64x128xf32, #tpu.memory_space<any>> -> memref<1x64x128xf32, #tpu.memory_space<any>>
// CHECK: "tpu.region"() ({
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<8x128xf32, #tpu.memory_space<vmem>>
// CHECK: %[[DSEM:.*]] = tpu.sem_alloc : memref<!tpu.dma_semaphore, #tpu.memory_space<semaphore_mem>>
// CHECK: %[[S1:.*]] = tpu.memref_slice %[[PLANE]][{{.*}}] : memref<1x64x128xf32, #tpu.memory_space<any>> -> memref<1x8x128xf32, #tpu.memory_space<any>>
// CHECK: %[[Q1:.*]] = tpu.memref_squeeze %[[S1]] : memref<1x8x128xf32, #tpu.memory_space<any>> -> memref<8x128xf32, #tpu.memory_space<any>>
// CHECK: tpu.enqueue_dma source(%[[Q1]] : memref<8x128xf32, #tpu.memory_space<any>>) target(%[[BUF]] : memref<8x128xf32, #tpu.memory_space<vmem>>) target_semaphore(%[[DSEM]] : memref<!tpu.dma_semaphore, #tpu.memory_space<semaphore_mem>>)
// CHECK: tpu.wait_dma2 semaphore(%[[DSEM]] : {{.*}}) src(%{{.*}} : memref<8x128xf32, #tpu.memory_space<any>>) dst(%[[BUF]] : memref<8x128xf32, #tpu.memory_space<vmem>>)
// CHECK: tpu.vector_store %[[O]]
// CHECK: tpu.yield
// CHECK: }) : () -> ()
// CHECK: tpu.sem_signal %[[SEM]], %[[ONE:.*]] : memref<!tpu.semaphore, #tpu.memory_space<semaphore_mem>>
// CHECK: tpu.sem_wait %[[SEM]], %[[ONE]] : memref<!tpu.semaphore, #tpu.memory_space<semaphore_mem>>
// CHECK: func.func @transform_1(%[[TI:.*]]: i32, %[[TROWS:.*]]: memref<8xi32, #tpu.memory_space<smem>>) -> (i32, i32)
// CHECK: %[[TII:.*]] = arith.index_cast %[[TI]] : i32 to index
// CHECK: %[[TR:.*]] = memref.load %[[TROWS]][%[[TII]]]
// CHECK: return %[[TR]], %{{.*}} : i32, i32
// CHECK: func.func @transform_2(
// CHECK-NOT: func.func @pick
func.func @pick(%i: i32, %rows: !pallas.ref<8xi32, smem>) -> (i32, i32) {
  %r = pallas.load %rows[%i] : !pallas.ref<8xi32, smem>, i32 -> i32
  %c0 = arith.constant 0 : i32
  return %r, %c0 : i32, i32
}
pallas.kernel @copies(%rows: !pallas.ref<8xi32, smem> {pallas.block_spec = #pallas.block_spec<prefetch, shape = [8], block = [8], index_map = affine_map<(i) -> (0)>>},
                      %x: !pallas.ref<4x64x128xf32, any> {pallas.block_spec = #pallas.block_spec<input, shape = [4, 64, 128], block = [4, 64, 128], index_map = affine_map<(i) -> (0, 0, 0)>>},
                      %y: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 128], block = [8, 128], index_fn = @pick>},
                      %o: !pallas.ref<8x128xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [64, 128], block = [8, 128], index_map = affine_map<(i) -> (i, 0)>>},
                      %sem: !pallas.semaphore {pallas.block_spec = #pallas.block_spec<scratch>})
    attributes {pallas.launch = #pallas.launch<symbol = "copies", grid = [8]>} {
  %i = pallas.program_id 0 : i32
  %r = pallas.load %rows[%i] : !pallas.ref<8xi32, smem>, i32 -> i32
  %plane = pallas.ref_slice %x[%r, :, :] : !pallas.ref<4x64x128xf32, any>, i32 -> !pallas.ref<64x128xf32, any>
  pallas.run_scoped (%buf: !pallas.ref<8x128xf32, vmem>, %dsem: !pallas.dma_semaphore) {
    pallas.async_copy %plane[ds(0, 8), :] -> %buf[...], %dsem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    pallas.dma_wait %plane[ds(0, 8), :] -> %buf[...], %dsem : !pallas.ref<64x128xf32, any> -> !pallas.ref<8x128xf32, vmem>
    %v = pallas.load %buf[...] : !pallas.ref<8x128xf32, vmem> -> tensor<8x128xf32>
    %w = pallas.load %y[...] : !pallas.ref<8x128xf32> -> tensor<8x128xf32>
    %s = arith.addf %v, %w : tensor<8x128xf32>
    pallas.store %o[...], %s : !pallas.ref<8x128xf32>, tensor<8x128xf32>
    pallas.yield
  }
  %c1 = arith.constant 1 : i32
  pallas.semaphore_signal %sem, %c1 : !pallas.semaphore
  pallas.semaphore_wait %sem, %c1 : !pallas.semaphore
  pallas.return
}

// -----

// lax.slice of a value (a column of lane-replicated row statistics, as
// JAX's TPU flash attention VJP takes them): vector.extract_strided_slice,
// as JAX lowers it.
// CHECK-LABEL: func.func @column(
// CHECK: %[[V:.*]] = vector.load
// CHECK: %[[COL:.*]] = vector.extract_strided_slice %[[V]] {offsets = [0, 0], sizes = [64, 1], strides = [1, 1]} : vector<64x128xf32> to vector<64x1xf32>
// CHECK: vector.shape_cast %[[COL]] : vector<64x1xf32> to vector<64xf32>
pallas.kernel @column(%x: !pallas.ref<64x128xf32> {pallas.block_spec = #pallas.block_spec<input, shape = [64, 128], block = [64, 128], index_map = affine_map<() -> (0, 0)>>},
                      %o: !pallas.ref<64xf32> {pallas.block_spec = #pallas.block_spec<output, shape = [64], block = [64], index_map = affine_map<() -> (0)>>})
    attributes {pallas.launch = #pallas.launch<symbol = "column", grid = []>} {
  %v = pallas.load %x[...] : !pallas.ref<64x128xf32> -> tensor<64x128xf32>
  %c = tensor.extract_slice %v[0, 0] [64, 1] [1, 1] : tensor<64x128xf32> to tensor<64x1xf32>
  %r = pallas.reshape %c : tensor<64x1xf32> -> tensor<64xf32>
  pallas.store %o[...], %r : !pallas.ref<64xf32>, tensor<64xf32>
  pallas.return
}
