//===- nn.h - The nn C++ API ------------------------------------*- C++ -*-===//
//
// One include for models: modules, functional ops, initialization, tracing,
// compiling, training (TrainStep, optimizers), and the runtime types they
// use.
//
//===----------------------------------------------------------------------===//
#ifndef NN_NN_H
#define NN_NN_H

#include "nn/Compile.h"
#include "nn/Frontend/Module.h"
#include "nn/Frontend/ModuleHolder.h"
#include "nn/Frontend/Serialize.h"
#include "nn/Functional.h"
#include "nn/Init.h"
#include "nn/Modules/Activation.h"
#include "nn/Modules/BatchNorm.h"
#include "nn/Modules/Container.h"
#include "nn/Modules/Conv.h"
#include "nn/Modules/Distance.h"
#include "nn/Modules/Dropout.h"
#include "nn/Modules/Embedding.h"
#include "nn/Modules/Flatten.h"
#include "nn/Modules/GroupNorm.h"
#include "nn/Modules/Identity.h"
#include "nn/Modules/InstanceNorm.h"
#include "nn/Modules/LayerNorm.h"
#include "nn/Modules/Linear.h"
#include "nn/Modules/Loss.h"
#include "nn/Modules/Padding.h"
#include "nn/Modules/PixelShuffle.h"
#include "nn/Modules/Pooling.h"
#include "nn/Modules/RNN.h"
#include "nn/Modules/Transformer.h"
#include "nn/Modules/Upsampling.h"
#include "nn/Optim/Adam.h"
#include "nn/Optim/Clip.h"
#include "nn/Optim/SGD.h"
#include "nn/Optim/Schedulers.h"
#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/Runtime/StateDict.h"
#include "nn/Runtime/Tensor.h"
#include "nn/Tracer.h"
#include "nn/Train.h"

#endif // NN_NN_H
