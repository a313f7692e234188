// Not valid Mosaic: the matmul's contracting dims disagree (64 vs 32).
func.func @bad(%a: vector<8x64xf32>, %b: vector<32x128xf32>) -> vector<8x128xf32> {
  %acc = arith.constant dense<0.0> : vector<8x128xf32>
  %r = tpu.matmul %a, %b, %acc {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : vector<8x64xf32>, vector<32x128xf32>, vector<8x128xf32> -> vector<8x128xf32>
  return %r : vector<8x128xf32>
}
