module {
  tt.func public @stream(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {pallas.launch = #pallas.launch<symbol = "stream", grid = [4], num_stages = 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c8 = arith.constant 8 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128xf32>
    %n = tt.get_program_id x : i32
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
      %off = arith.muli %k, %c128 : i32
      %s = tt.splat %off : i32 -> tensor<128xi32>
      %idx = arith.addi %s, %r : tensor<128xi32>
      %xs = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
      %p = tt.addptr %xs, %idx : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
      %v = tt.load %p : tensor<128x!tt.ptr<f32>>
      %a = arith.addf %acc, %v : tensor<128xf32>
      scf.yield %a : tensor<128xf32>
    }
    %os = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %q = tt.addptr %os, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %q, %sum : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
