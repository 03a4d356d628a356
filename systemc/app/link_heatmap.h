// The PNG heat map of link utilisation a run writes beside links.csv (doc/topology.md): one row
// of cells per switch (in id order), one cell per port, coloured by the utilisation of the link
// the port sends on, over the measurement window: dark blue 0, green 0.5, yellow 1 (viridis);
// ports a switch does not have are black. A strip below shows the scale from 0 to 1.
#pragma once

#include <string>
#include <vector>

namespace upswitch::app {

// `utilisation[s][q]`: switch s's port q, 0 .. 1. Returns the PNG file's bytes.
std::string link_heatmap_png(const std::vector<std::vector<double>>& utilisation);

}  // namespace upswitch::app
