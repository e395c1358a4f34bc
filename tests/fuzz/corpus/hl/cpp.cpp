#include <vector>
#include <string>

namespace geo {
template <typename T>
class Shape : public Base {
public:
    explicit Shape(std::vector<T> pts) : pts_(std::move(pts)) {}
    virtual ~Shape() = default;
    auto area() const noexcept -> double override;
private:
    std::vector<T> pts_;
};
}

int main() {
    auto s = std::make_unique<geo::Shape<int>>(std::vector<int>{1, 2, 3});
    std::string raw = R"(raw "string")";
    constexpr int k = 42;
    static_assert(k == 42, "k");
    for (const auto& p : {1, 2, 3}) { std::cout << p << std::endl; }
    return nullptr == nullptr ? 0 : 1;
}
