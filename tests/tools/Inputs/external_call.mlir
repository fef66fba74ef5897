// forward calls a function nothing defines: the compile must refuse it at
// the call, not leave it for the loader.
func.func private @my_hook(i64)
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 3 : i64
  func.call @my_hook(%c) : (i64) -> ()
  %0 = nn.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
