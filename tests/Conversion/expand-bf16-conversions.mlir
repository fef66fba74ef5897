// RUN: nn-opt %s -nn-expand-bf16-conversions -split-input-file | FileCheck %s

// truncf to bf16: round to nearest even on the bits, NaN to 0x7FC0.
// CHECK-LABEL: func.func @truncf_bf16
// CHECK-NOT: arith.truncf
// CHECK: %[[NAN:.+]] = arith.cmpf une, %[[X:.+]], %[[X]] : f32
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.shrui %[[BITS]]
// CHECK: %[[HI:.+]] = arith.trunci %{{.*}} : i32 to i16
// CHECK: %[[SEL:.+]] = arith.select %[[NAN]], %{{.*}}, %[[HI]] : i16
// CHECK: arith.bitcast %[[SEL]] : i16 to bf16
func.func @truncf_bf16(%x: f32) -> bf16 {
  %y = arith.truncf %x : f32 to bf16
  return %y : bf16
}

// -----

// extf from bf16: the bits shifted into the top half of an i32.
// CHECK-LABEL: func.func @extf_bf16
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : i32 to f32
func.func @extf_bf16(%x: bf16) -> f32 {
  %y = arith.extf %x : bf16 to f32
  return %y : f32
}

// -----

// Left alone: f16 conversions (LLVM lowers them to F16C or libgcc) and f32
// arithmetic (no arith-expand: maximumf keeps its lowering).
// CHECK-LABEL: func.func @no_expand_f16_f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.bitcast
func.func @no_expand_f16_f32(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %w = arith.extf %h : f16 to f32
  %m = arith.maximumf %w, %x : f32
  return %m : f32
}
