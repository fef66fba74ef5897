// A 128-bit division, which x86-64 has no instruction for: LLVM calls
// libgcc's __divti3, which no compiled model links.
func.func @forward(%x: tensor<2xi64>) -> tensor<1xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %x[%c0] : tensor<2xi64>
  %b = tensor.extract %x[%c1] : tensor<2xi64>
  %a2 = arith.extsi %a : i64 to i128
  %b2 = arith.extsi %b : i64 to i128
  %q = arith.divsi %a2, %b2 : i128
  %r = arith.trunci %q : i128 to i64
  %t = tensor.from_elements %r : tensor<1xi64>
  return %t : tensor<1xi64>
}
