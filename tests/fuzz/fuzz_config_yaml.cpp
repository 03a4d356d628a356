// libFuzzer target: any bytes as a YAML configuration file. The only acceptable outcomes are a
// valid configuration or a one-line ConfigError; anything else (another exception, a crash, a
// sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/param_table.h"
#include "config/yaml_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  upswitch::config::Config c = upswitch::config::default_config();
  try {
    upswitch::config::load_yaml_text(c, text, "fuzz.yaml");
    upswitch::config::validate(c);
    (void)upswitch::config::config_to_json(c).dump();
  } catch (const upswitch::config::ConfigError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();  // errors are one line
  }
  return 0;
}
