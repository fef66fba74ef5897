// relu(x + x) over 2^18 floats: big enough for the generated loop to be
// split over the runtime's thread pool (nn-outline-parallel-loops).
func.func @forward(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  %y = nn.add %x, %x : (tensor<262144xf32>, tensor<262144xf32>) -> tensor<262144xf32>
  %z = nn.relu %y : tensor<262144xf32>
  return %z : tensor<262144xf32>
}
