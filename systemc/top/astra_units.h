// The unit ASTRA-sim's analytical backend reads its network file's `bandwidth` in: it multiplies
// the number by 2^30 to get B/s in its released versions (astra-network-analytical
// common/NetworkFunction.cpp, bw_GBps_to_Bpns), by 10^9 after the change that makes GB/s decimal.
// `upswitch table --astra-units` names the one the file is written for (top/astra_export.h).
#pragma once

#include <string>

namespace upswitch::top {

enum class AstraUnits { kBinary, kDecimal };
const char* astra_units_name(AstraUnits u);  // "binary", "decimal"
bool parse_astra_units(const std::string& s, AstraUnits& out);
double astra_unit_bytes_per_s(AstraUnits u);  // 2^30 or 10^9

}  // namespace upswitch::top
