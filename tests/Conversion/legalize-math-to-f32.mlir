// RUN: nn-opt %s -nn-legalize-math-to-f32 -split-input-file | FileCheck %s

// f16 and bf16 math runs in f32 between an extf and a truncf; f32 and f64
// math is left alone (upstream's math-legalize-to-f32 turned the f64 one
// into an invalid extf to f32).
// CHECK-LABEL: func.func @widths
// CHECK-DAG: %[[B:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK-DAG: %[[E:.+]] = arith.extf %{{.+}} : vector<8xf16> to vector<8xf32>
// CHECK: %[[X:.+]] = math.exp %[[E]] : vector<8xf32>
// CHECK: arith.truncf %[[X]] {{.*}}: vector<8xf32> to vector<8xf16>
// CHECK: %[[T:.+]] = math.tanh %[[B]] : f32
// CHECK: arith.truncf %[[T]] {{.*}}: f32 to bf16
// CHECK: math.exp %{{.+}} : vector<8xf32>
// CHECK: math.log %{{.+}} : vector<8xf64>
// CHECK-NOT: arith.extf
// CHECK: return
func.func @widths(%a: vector<8xf16>, %b: bf16, %c: vector<8xf32>, %d: vector<8xf64>)
    -> (vector<8xf16>, bf16, vector<8xf32>, vector<8xf64>) {
  %0 = math.exp %a : vector<8xf16>
  %1 = math.tanh %b : bf16
  %2 = math.exp %c : vector<8xf32>
  %3 = math.log %d : vector<8xf64>
  return %0, %1, %2, %3 : vector<8xf16>, bf16, vector<8xf32>, vector<8xf64>
}
