// Reads a YAML configuration file into a Config: nested maps or dotted keys, scalars or lists.
#pragma once

#include <string>

#include "config/config.h"

namespace upswitch::config {

// Applies every key of the file to c. Errors (unreadable file, YAML syntax, unknown key, bad
// value) are one-line ConfigErrors naming the file, line and key.
void load_yaml_file(Config& c, const std::string& path);
void load_yaml_text(Config& c, const std::string& text, const std::string& origin);

}  // namespace upswitch::config
