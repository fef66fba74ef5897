// RUN: nn-translate --nn-to-cuda %s -split-input-file | FileCheck %s

// A pointwise generic with a broadcast operand: one thread per element, its
// indices from the thread's position (the last dimension fastest), every
// operand addressed through its layout, the payload one line per op, and
// arith.maximumf spelled with its NaN and signed-zero rule. The kernel is
// named after its function, its position and the module path of its
// location; the plan passes each buffer's base.
// CHECK: NN_DEVICE float nn_maximumf(float a, float b)
// CHECK-LABEL: struct forward_0_block_relu_params {
// CHECK-NEXT:   float *p0;
// CHECK-NEXT:   float *p1;
// CHECK-NEXT:   float *p2;
// CHECK-NEXT: };
// CHECK: extern "C" __global__ void __launch_bounds__(256) forward_0_block_relu(const forward_0_block_relu_params p) {
// CHECK-NEXT:   typedef int nn_index;
// CHECK-NEXT:   for (nn_index t = (nn_index)blockIdx.x * blockDim.x + threadIdx.x; t < 32; t += (nn_index)gridDim.x * blockDim.x) {
// CHECK-NEXT:     nn_index rest_t = t;
// CHECK-NEXT:     const nn_index d1 = rest_t % 8;
// CHECK-NEXT:     rest_t /= 8;
// CHECK-NEXT:     const nn_index d0 = rest_t;
// CHECK-NEXT:     const float v0 = p.p0[(nn_index)(d0) * 8 + d1];
// CHECK-NEXT:     const float v1 = p.p1[d1];
// CHECK-NEXT:     float o0;
// CHECK-NEXT:     const float v2 = (v0 + v1);
// CHECK-NEXT:     const float v3 = 0x0p+0f;
// CHECK-NEXT:     const float v4 = nn_maximumf(v2, v3);
// CHECK-NEXT:     o0 = v4;
// CHECK-NEXT:     p.p2[(nn_index)(d0) * 8 + d1] = o0;
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK: extern "C" void forward_0_block_relu_emulated(const void *params, unsigned grid, unsigned block) {

// A reduction: the accumulator starts from the linalg.fill before it,
// which is no kernel of its own; the reduction is a loop in the thread, the
// result written once.
// CHECK-LABEL: void __launch_bounds__(256) forward_1(
// CHECK:          const nn_index d0 = t;
// CHECK-NEXT:     const float v0 = 0x0p+0f;
// CHECK-NEXT:     float o0 = v0;
// CHECK-NEXT:     for (nn_index d1 = 0; d1 < 8; ++d1) {
// CHECK-NEXT:       const float v1 = p.p1[(nn_index)(d0) * 8 + d1];
// CHECK-NEXT:       const float v2 = (o0 + v1);
// CHECK-NEXT:       o0 = v2;
// CHECK-NEXT:     }
// CHECK-NEXT:     p.p0[d0] = o0;

// memref.copy between views: the views' offsets and strides baked in, the
// views' buffers passed whole.
// CHECK-LABEL: void __launch_bounds__(256) forward_2(
// CHECK: p.p1[2 + (nn_index)(d0) * 8 + d1] = p.p0[(nn_index)(d0) * 8 + (nn_index)(d1) * 2];

// CHECK-LABEL: // plan forward:
// CHECK-NEXT: //   b0 = argument 0
// CHECK-NEXT: //   b1 = argument 1
// CHECK-NEXT: //   b2 = argument 2
// CHECK-NEXT: //   b3 = argument 3
// CHECK-NEXT: //   b4 = temporary 128 bytes
// CHECK-NEXT: //   forward_0_block_relu<<<1, 256>>>(b0, b1, b4)
// CHECK-NEXT: //   forward_1<<<1, 256>>>(b3, b4)
// CHECK-NEXT: //   forward_2<<<1, 256>>>(b4, b2)
// CHECK-NOT: <<<
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @forward(%x: memref<4x8xf32>, %b: memref<8xf32>, %y: memref<4x8xf32>, %s: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<4x8xf32>, memref<8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } loc("block.relu")
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %a : f32
    linalg.yield %0 : f32
  }
  %v = memref.subview %y[0, 2] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  %w = memref.subview %t[0, 0] [4, 4] [1, 2] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 2]>>
  memref.copy %w, %v : memref<4x4xf32, strided<[8, 2]>> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.dealloc %t : memref<4x8xf32>
  return
}

// -----

// An embedding gather: a buffer read inside the payload at computed indices
// is a parameter too; i64 indices are long long. Infinity is spelled by its
// bits; bf16 is stored as bits and computed in f32.
// CHECK-LABEL: struct gather_0_params {
// CHECK-NEXT:   long long *p0;
// CHECK-NEXT:   nn_bf16 *p1;
// CHECK-NEXT:   nn_bf16 *p2;
// CHECK-NEXT: };
// CHECK:     const long long v0 = p.p0[d0];
// CHECK:     const long long v1 = d1;
// CHECK-NEXT:     const long long v2 = (long long)v0;
// CHECK-NEXT:     const nn_bf16 v3 = p.p2[(nn_index)(v2) * 8 + v1];
// CHECK-NEXT:     const float v4 = nn_bf16_to_f32(v3);
// CHECK-NEXT:     const float v5 = nn_f32_from_bits(0xff800000u);
// CHECK-NEXT:     const float v6 = nn_maximumf(v4, v5);
// CHECK-NEXT:     const nn_bf16 v7 = nn_f32_to_bf16(v6);
// CHECK-NEXT:     o0 = v7;
// CHECK: //   gather_0<<<1, 256>>>(b1, b2, b0)
#map0 = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather(%w: memref<10x8xbf16>, %ids: memref<3xi64>, %out: memref<3x8xbf16>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#map0, #map1], iterator_types = ["parallel", "parallel"]}
      ins(%ids : memref<3xi64>) outs(%out : memref<3x8xbf16>) {
  ^bb0(%id: i64, %o: bf16):
    %j = linalg.index 1 : index
    %i = arith.index_cast %id : i64 to index
    %e = memref.load %w[%i, %j] : memref<10x8xbf16>
    %f = arith.extf %e : bf16 to f32
    %m = arith.maximumf %f, %ninf : f32
    %r = arith.truncf %m : f32 to bf16
    linalg.yield %r : bf16
  }
  return
}

// -----

// A named op (linalg.matmul) through its own payload; the constant buffer of
// memref.get_global is uploaded by the plan.
// CHECK-LABEL: void __launch_bounds__(256) mm_0(
// CHECK:          float o0 = p.p0[(nn_index)(d0) * 3 + d1];
// CHECK-NEXT:     for (nn_index d2 = 0; d2 < 4; ++d2) {
// CHECK-NEXT:       const float v0 = p.p1[(nn_index)(d0) * 4 + d2];
// CHECK-NEXT:       const float v1 = p.p2[(nn_index)(d2) * 3 + d1];
// CHECK-NEXT:       const float v2 = (v0 * v1);
// CHECK-NEXT:       const float v3 = (o0 + v2);
// CHECK-NEXT:       o0 = v3;
// CHECK-NEXT:     }
// CHECK: //   b2 = constant 48 bytes
// CHECK: //   mm_0<<<1, 256>>>(b1, b0, b2)
memref.global "private" constant @k : memref<4x3xf32> = dense<1.5>
func.func @mm(%a: memref<2x4xf32>, %c: memref<2x3xf32>) {
  %b = memref.get_global @k : memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<2x4xf32>, memref<4x3xf32>) outs(%c : memref<2x3xf32>)
  return
}

// -----

// A bool constant is uploaded one byte per element.
// CHECK-LABEL: // plan mask:
// CHECK: //   b2 = constant 4 bytes
// CHECK: //   mask_0<<<1, 256>>>(b0, b2, b1)
memref.global "private" constant @m : memref<4xi1> = dense<[true, false, true, true]>
func.func @mask(%x: memref<4xf32>, %y: memref<4xf32>) {
  %m = memref.get_global @m : memref<4xi1>
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %m : memref<4xf32>, memref<4xi1>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %k: i1, %o: f32):
    %0 = arith.select %k, %a, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A fill stays a kernel where what follows does not overwrite all of it:
// here the generic reads the filled buffer as an input too (in place,
// element by element, as bufferization makes such ops).
// CHECK-LABEL: // plan keep:
// CHECK-NEXT: //   b0 = argument 0
// CHECK-NEXT: //   keep_0<<<1, 256>>>(b0)
// CHECK-NEXT: //   keep_1<<<1, 256>>>(b0)
func.func @keep(%x: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%x : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<4xf32>) outs(%x : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction of 256 points or more whose accumulator only folds values in
// is a block's per output point: each thread folds a strided share into a
// partial from the fold's identity (-inf for a max, by its bits), the block
// combines the partials in halves in shared memory, and thread 0 folds
// their total into the output's start (here the output's own value). The
// plan launches a block per point.
// CHECK-LABEL: void __launch_bounds__(256) rowmax_0(
// CHECK-NEXT:   typedef int nn_index;
// CHECK-NEXT:   for (nn_index t = blockIdx.x; t < 4; t += gridDim.x) {
// CHECK-NEXT:     const nn_index d0 = t;
// CHECK-NEXT:     const float i0 = p.p0[d0];
// CHECK-NEXT:     float o0 = nn_f32_from_bits(0xff800000u);
// CHECK-NEXT:     for (nn_index r = threadIdx.x; r < 300; r += blockDim.x) {
// CHECK-NEXT:       const nn_index d1 = r;
// CHECK-NEXT:       const float v0 = p.p1[(nn_index)(d0) * 300 + d1];
// CHECK-NEXT:       const float v1 = nn_maximumf(o0, v0);
// CHECK-NEXT:       o0 = v1;
// CHECK-NEXT:     }
// CHECK-NEXT:     __shared__ float s0[256];
// CHECK-NEXT:     s0[threadIdx.x] = o0;
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:     for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
// CHECK-NEXT:       if (threadIdx.x < half) {
// CHECK-NEXT:         const float v2 = nn_maximumf(s0[threadIdx.x], s0[threadIdx.x + half]);
// CHECK-NEXT:         s0[threadIdx.x] = v2;
// CHECK-NEXT:       }
// CHECK-NEXT:       __syncthreads();
// CHECK-NEXT:     }
// CHECK-NEXT:     if (threadIdx.x == 0) {
// CHECK-NEXT:       const float v3 = nn_maximumf(i0, s0[0]);
// CHECK-NEXT:       p.p0[d0] = v3;
// CHECK-NEXT:     }
// CHECK-NEXT:     __syncthreads();
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK: nn_emulate_block_launch(grid, block, [&] { rowmax_0(p); });

// Down the columns of an f64 matrix (two reduction dimensions flattened,
// the last fastest), from a fill's value: the sum's identity is 0.
// CHECK-LABEL: void __launch_bounds__(256) rowmax_1(
// CHECK:          const double i0 = v0;
// CHECK-NEXT:     double o0 = (double)0;
// CHECK-NEXT:     for (nn_index r = threadIdx.x; r < 600; r += blockDim.x) {
// CHECK-NEXT:       nn_index rest_r = r;
// CHECK-NEXT:       const nn_index d2 = rest_r % 2;
// CHECK-NEXT:       rest_r /= 2;
// CHECK-NEXT:       const nn_index d1 = rest_r;
// CHECK:          __shared__ double s0[256];

// The accumulator read by more than its fold (here doubled first): each
// thread reduces its point alone, as below 256 points.
// CHECK-LABEL: void __launch_bounds__(256) rowmax_2(
// CHECK-NOT:   __syncthreads
// CHECK:       for (nn_index d1 = 0; d1 < 300; ++d1) {
// CHECK-LABEL: void __launch_bounds__(256) rowmax_3(
// CHECK-NOT:   __syncthreads
// CHECK:       for (nn_index d1 = 0; d1 < 255; ++d1) {

// 2^17 output points or more: a thread's each, however long.
// CHECK-LABEL: void __launch_bounds__(256) rowmax_4(
// CHECK-NOT:   __syncthreads
// CHECK:       for (nn_index d1 = 0; d1 < 256; ++d1) {

// CHECK-LABEL: // plan rowmax:
// CHECK:      //   rowmax_0<<<4, 256>>>(b1, b0)
// CHECK-NEXT: //   rowmax_1<<<5, 256>>>(b3, b2)
// CHECK-NEXT: //   rowmax_2<<<1, 256>>>(b1, b0)
// CHECK-NEXT: //   rowmax_3<<<1, 256>>>(b4, b0)
// CHECK-NEXT: //   rowmax_4<<<512, 256>>>(b6, b5)
#row = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#cout = affine_map<(d0, d1, d2) -> (d0)>
func.func @rowmax(%x: memref<4x300xf32>, %m: memref<4xf32>, %y: memref<300x5x2xf64>, %s: memref<5xf64>, %u: memref<4xf32>, %big: memref<131072x256xf32>, %bo: memref<131072xf32>) {
  linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x300xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.maximumf %o, %a : f32
    linalg.yield %0 : f32
  }
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%s : memref<5xf64>)
  linalg.generic {indexing_maps = [#cols, #cout], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%y : memref<300x5x2xf64>) outs(%s : memref<5xf64>) {
  ^bb0(%a: f64, %o: f64):
    %0 = arith.addf %o, %a : f64
    linalg.yield %0 : f64
  }
  linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x300xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %o : f32
    %1 = arith.addf %0, %a : f32
    linalg.yield %1 : f32
  }
  %w = memref.subview %x[0, 0] [4, 255] [1, 1] : memref<4x300xf32> to memref<4x255xf32, strided<[300, 1]>>
  linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<4x255xf32, strided<[300, 1]>>) outs(%u : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %a : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%big : memref<131072x256xf32>) outs(%bo : memref<131072xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %o, %a : f32
    linalg.yield %0 : f32
  }
  return
}
