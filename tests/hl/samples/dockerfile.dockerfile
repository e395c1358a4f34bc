# syntax=docker/dockerfile:1
FROM debian:bookworm-slim AS build
ARG VERSION=1.0
ENV LANG=C.UTF-8 \
    PATH="/opt/bin:$PATH"
RUN apt-get update && apt-get install -y --no-install-recommends \
        build-essential cmake && \
    rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -B build && cmake --build build -j"$(nproc)"

FROM debian:bookworm-slim
COPY --from=build /src/build/sheaf /usr/local/bin/
EXPOSE 8000
USER nobody
ENTRYPOINT ["sheaf"]
CMD ["serve", "--port", "8000"]
