#pragma once
// HostPoolBar: the host (swap) pool as a vertical gauge: bytes in use over host_capacity_bytes, with both
// figures written out so it reads without colour.

#include <QWidget>

#include <cstdint>

namespace plui {

class HostPoolBar : public QWidget {
    Q_OBJECT
  public:
    explicit HostPoolBar(QWidget* parent = nullptr);
    void setUsage(std::int64_t usedBytes, std::int64_t capacityBytes);
    QSize sizeHint() const override { return {104, 240}; }
    QSize minimumSizeHint() const override { return {104, 140}; }

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    std::int64_t used_ = 0;
    std::int64_t capacity_ = 0;
};

} // namespace plui
