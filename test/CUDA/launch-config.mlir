// RUN: pallas-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect
// RUN: sed -n '/^"test.op"() {c = #pallas_gpu.launch_config<threads = 384/p' %s | pallas-opt -allow-unregistered-dialect | FileCheck %s

// #pallas_gpu.launch_config (what convert-tile-to-nvvm decides about a
// kernel's launch, which the CUDA backend reads) holds only launches that
// can run: the verifier refuses the rest where the attribute is parsed.

// A well-formed one is accepted and prints as it was written.
// CHECK: #pallas_gpu.launch_config<threads = 384, grid = [132, 1, 1], shared_bytes = 1024, cluster = 2, persistent = true, tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 64, row_elements = 64, elem_bytes = 2, box_rows = 64, box_cols = 64>]>
"test.op"() {c = #pallas_gpu.launch_config<threads = 384, grid = [132, 1, 1], shared_bytes = 1024, cluster = 2, persistent = true, tensor_maps = [#pallas_gpu.tensor_map<param = 0, rows = 64, row_elements = 64, elem_bytes = 2, box_rows = 64, box_cols = 64>]>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config threads must be at least 1, got 0}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 0, shared_bytes = 0>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config grid must be three sizes of at least 1}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 128, grid = [4, 1], shared_bytes = 0>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config grid must be three sizes of at least 1}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 128, grid = [4, 0, 1], shared_bytes = 0>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config shared_bytes must not be negative}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 128, shared_bytes = -1>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config cluster must be at least 1}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 128, shared_bytes = 0, cluster = 0>} : () -> ()

// -----

// expected-error @+1 {{#pallas_gpu.launch_config tensor_maps must hold #pallas_gpu.tensor_map}}
"test.op"() {c = #pallas_gpu.launch_config<threads = 128, shared_bytes = 0, tensor_maps = [1]>} : () -> ()
