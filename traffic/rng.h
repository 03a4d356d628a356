// The traffic layer's name for the model's random numbers (core/rng.h, where the data-link
// layer's error draws need them too).
#pragma once

#include "core/rng.h"

namespace upswitch::traffic {

using core::Rng;
using core::splitmix64;

}  // namespace upswitch::traffic
