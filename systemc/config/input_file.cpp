#include "config/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/config.h"

namespace upswitch::config {
namespace {

[[noreturn]] void refuse(const std::string& what, const std::string& path, const std::string& why) {
  throw ConfigError(what + " '" + path + "': " + why);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor on every path out of read_input_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& what, const std::string& path, uint64_t max_bytes) {
  if (path.empty()) refuse(what, path, "empty path; expected a readable regular file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    refuse(what, path, errno == ENOENT ? "no such file" : std::string("cannot be read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) refuse(what, path, std::string("is ") + kind_of(st.st_mode) + "; expected a regular file");
  // O_NONBLOCK: should the path have become a FIFO since the stat, opening it does not block.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) refuse(what, path, std::string("cannot be read: ") + std::strerror(errno));
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) refuse(what, path, "is not a regular file; expected a regular file");
  const auto too_large = [&] {
    refuse(what, path, "larger than " + std::to_string(max_bytes >> 20) + " MiB, the most accepted");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) too_large();
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      refuse(what, path, std::string("cannot be read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes) too_large();  // a file that grows while read
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace upswitch::config
