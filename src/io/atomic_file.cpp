#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

#include "util/error.hpp"

namespace libvbmc {

namespace {

std::string system_error(int error) { return std::strerror(error); }

std::string directory_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// "<target>.tmp." and six random letters or digits.
std::string random_temporary_name(const std::string& target, std::random_device& random) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string name = target + ".tmp.";
    for (int i = 0; i < 6; ++i) name += alphabet[random() % (sizeof alphabet - 1)];
    return name;
}

// Tries random temporary names until claim(name) succeeds (returns 0) and returns that name.
// claim returns EEXIST for a taken name, another errno value to give up with "cannot <action>".
std::string claim_temporary_name(const std::string& target, const char* action,
                                 const std::function<int(const std::string&)>& claim) {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string name = random_temporary_name(target, random);
        const int error = claim(name);
        if (error == 0) return name;
        if (error != EEXIST) throw_error(Code::io, std::string("cannot ") + action + " \"" + name + "\": " + system_error(error));
    }
    throw_error(Code::io, "cannot find a free temporary name beside \"" + target + "\" in 100 attempts");
}

// An unnamed file in directory (Linux O_TMPFILE), or -1 where that is unsupported. It is used only
// when /proc/self/fd is there to give it a name once written.
int open_anonymous(const std::string& directory) {
#ifdef O_TMPFILE
    if (::access("/proc/self/fd", X_OK) == 0) return ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#else
    (void)directory;
#endif
    return -1;
}

// Writes all of bytes to fd; returns 0 or the errno value of the failed write.
int write_all(int fd, const std::vector<uint8_t>& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;
        done += static_cast<size_t>(n);
    }
    return 0;
}

// A temporary file beside its target, owned by one writer. The destructor closes it and removes
// the name it has until it is renamed over the target.
class Temporary {
public:
    explicit Temporary(const std::string& target) : target_(target) {
        fd_ = open_anonymous(directory_of(target));
        if (fd_ < 0) name_ = claim_temporary_name(target_, "create", [this](const std::string& name) {
            fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            return fd_ < 0 ? errno : 0;
        });
    }
    ~Temporary() {
        if (fd_ >= 0) ::close(fd_);
        if (!name_.empty()) ::unlink(name_.c_str());
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;

    void write(const std::vector<uint8_t>& bytes) {
        const int error = write_all(fd_, bytes);
        if (error != 0) throw_error(Code::io, "cannot write the temporary file of \"" + target_ + "\": " + system_error(error));
    }

    // Flushes the contents to the device, names an anonymous file and closes it.
    void finish() {
        if (::fsync(fd_) != 0) throw_error(Code::io, "cannot sync the temporary file of \"" + target_ + "\": " + system_error(errno));
        if (name_.empty()) name_ = claim_temporary_name(target_, "link the temporary file as", [this](const std::string& name) {
            const std::string self = "/proc/self/fd/" + std::to_string(fd_);
            return ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0 ? 0 : errno;
        });
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) throw_error(Code::io, "cannot close \"" + name_ + "\": " + system_error(errno));
    }

    void rename_over_target() {
        if (std::rename(name_.c_str(), target_.c_str()) != 0)
            throw_error(Code::io, "cannot rename \"" + name_ + "\" to \"" + target_ + "\": " + system_error(errno));
        name_.clear();
    }

private:
    std::string target_;
    std::string name_;  // empty while the file is anonymous, and once renamed
    int fd_ = -1;
};

// Makes a rename in directory durable. Filesystems that cannot sync a directory (EINVAL) and
// directories that cannot be opened for reading are left to the system's own schedule.
void sync_directory(const std::string& directory, const std::string& path) {
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    const int error = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    if (error != 0 && error != EINVAL)
        throw_error(Code::io, "\"" + path + "\" was replaced, but syncing its directory \"" + directory +
                                  "\" failed: " + system_error(error));
}

}  // namespace

void replace_file(const std::string& path, std::initializer_list<const std::vector<uint8_t>*> pieces) {
    Temporary temporary(path);
    for (const std::vector<uint8_t>* piece : pieces) temporary.write(*piece);
    temporary.finish();
    temporary.rename_over_target();
    sync_directory(directory_of(path), path);
}

}  // namespace libvbmc
