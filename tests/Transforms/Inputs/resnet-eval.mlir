module {
  nn.parameter @stem.0.weight : tensor<8x3x3x3xf32>
  nn.parameter @stem.1.weight : tensor<8xf32>
  nn.parameter @stem.1.bias : tensor<8xf32>
  nn.parameter @layer1.conv1.weight : tensor<8x8x3x3xf32>
  nn.parameter @layer1.bn1.weight : tensor<8xf32>
  nn.parameter @layer1.bn1.bias : tensor<8xf32>
  nn.parameter @layer1.conv2.weight : tensor<8x8x3x3xf32>
  nn.parameter @layer1.bn2.weight : tensor<8xf32>
  nn.parameter @layer1.bn2.bias : tensor<8xf32>
  nn.parameter @layer2.conv1.weight : tensor<8x8x3x3xf32>
  nn.parameter @layer2.bn1.weight : tensor<8xf32>
  nn.parameter @layer2.bn1.bias : tensor<8xf32>
  nn.parameter @layer2.conv2.weight : tensor<8x8x3x3xf32>
  nn.parameter @layer2.bn2.weight : tensor<8xf32>
  nn.parameter @layer2.bn2.bias : tensor<8xf32>
  nn.parameter @fc.weight : tensor<10x8xf32>
  nn.parameter @fc.bias : tensor<10xf32>
  nn.buffer @stem.1.running_mean : tensor<8xf32> persistent
  nn.buffer @stem.1.running_var : tensor<8xf32> persistent
  nn.buffer @stem.1.num_batches_tracked : tensor<i64> persistent
  nn.buffer @layer1.bn1.running_mean : tensor<8xf32> persistent
  nn.buffer @layer1.bn1.running_var : tensor<8xf32> persistent
  nn.buffer @layer1.bn1.num_batches_tracked : tensor<i64> persistent
  nn.buffer @layer1.bn2.running_mean : tensor<8xf32> persistent
  nn.buffer @layer1.bn2.running_var : tensor<8xf32> persistent
  nn.buffer @layer1.bn2.num_batches_tracked : tensor<i64> persistent
  nn.buffer @layer2.bn1.running_mean : tensor<8xf32> persistent
  nn.buffer @layer2.bn1.running_var : tensor<8xf32> persistent
  nn.buffer @layer2.bn1.num_batches_tracked : tensor<i64> persistent
  nn.buffer @layer2.bn2.running_mean : tensor<8xf32> persistent
  nn.buffer @layer2.bn2.running_var : tensor<8xf32> persistent
  nn.buffer @layer2.bn2.num_batches_tracked : tensor<i64> persistent
  func.func @forward(%arg0: tensor<2x3x8x8xf32>) -> tensor<2x10xf32> {
    %0 = nn.load @stem.0.weight : tensor<8x3x3x3xf32>
    %1 = nn.load @stem.1.weight : tensor<8xf32>
    %2 = nn.load @stem.1.bias : tensor<8xf32>
    %3 = nn.load @stem.1.running_mean : tensor<8xf32>
    %4 = nn.load @stem.1.running_var : tensor<8xf32>
    %5 = nn.load @layer1.conv1.weight : tensor<8x8x3x3xf32>
    %6 = nn.load @layer1.bn1.weight : tensor<8xf32>
    %7 = nn.load @layer1.bn1.bias : tensor<8xf32>
    %8 = nn.load @layer1.bn1.running_mean : tensor<8xf32>
    %9 = nn.load @layer1.bn1.running_var : tensor<8xf32>
    %10 = nn.load @layer1.conv2.weight : tensor<8x8x3x3xf32>
    %11 = nn.load @layer1.bn2.weight : tensor<8xf32>
    %12 = nn.load @layer1.bn2.bias : tensor<8xf32>
    %13 = nn.load @layer1.bn2.running_mean : tensor<8xf32>
    %14 = nn.load @layer1.bn2.running_var : tensor<8xf32>
    %15 = nn.load @layer2.conv1.weight : tensor<8x8x3x3xf32>
    %16 = nn.load @layer2.bn1.weight : tensor<8xf32>
    %17 = nn.load @layer2.bn1.bias : tensor<8xf32>
    %18 = nn.load @layer2.bn1.running_mean : tensor<8xf32>
    %19 = nn.load @layer2.bn1.running_var : tensor<8xf32>
    %20 = nn.load @layer2.conv2.weight : tensor<8x8x3x3xf32>
    %21 = nn.load @layer2.bn2.weight : tensor<8xf32>
    %22 = nn.load @layer2.bn2.bias : tensor<8xf32>
    %23 = nn.load @layer2.bn2.running_mean : tensor<8xf32>
    %24 = nn.load @layer2.bn2.running_var : tensor<8xf32>
    %25 = nn.load @fc.weight : tensor<10x8xf32>
    %26 = nn.load @fc.bias : tensor<10xf32>
    %27 = nn.conv %arg0, %0 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x8x8xf32>
    %28 = nn.batch_norm %27, %3, %4 weight %1 bias %2 eps 1.000000e-05 : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
    %29 = nn.relu %28 : tensor<2x8x8x8xf32>
    %30 = nn.conv %29, %5 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x8x8xf32>
    %31 = nn.batch_norm %30, %8, %9 weight %6 bias %7 eps 1.000000e-05 : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
    %32 = nn.relu %31 : tensor<2x8x8x8xf32>
    %33 = nn.conv %32, %10 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x8x8xf32>
    %34 = nn.batch_norm %33, %13, %14 weight %11 bias %12 eps 1.000000e-05 : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
    %35 = nn.add %34, %29 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %36 = nn.relu %35 : tensor<2x8x8x8xf32>
    %37 = nn.conv %36, %15 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x8x8xf32>
    %38 = nn.batch_norm %37, %18, %19 weight %16 bias %17 eps 1.000000e-05 : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
    %39 = nn.relu %38 : tensor<2x8x8x8xf32>
    %40 = nn.conv %39, %20 stride [1, 1] padding [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x8x8xf32>
    %41 = nn.batch_norm %40, %23, %24 weight %21 bias %22 eps 1.000000e-05 : (tensor<2x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x8x8xf32>
    %42 = nn.add %41, %36 : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %43 = nn.relu %42 : tensor<2x8x8x8xf32>
    %44 = nn.adaptive_avg_pool %43 output_size [1, 1] : (tensor<2x8x8x8xf32>) -> tensor<2x8x1x1xf32>
    %45 = nn.flatten %44 from 1 to -1 : (tensor<2x8x1x1xf32>) -> tensor<2x8xf32>
    %46 = nn.linear %45, %25, %26 : (tensor<2x8xf32>, tensor<10x8xf32>, tensor<10xf32>) -> tensor<2x10xf32>
    return %46 : tensor<2x10xf32>
  }
}
