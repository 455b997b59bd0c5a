# berth-manager's image for users with Docker (or `buildah bud`). scripts/image.sh builds the same
# root filesystem here without a daemon or a base image; both lay it out with scripts/image-rootfs.sh.
#   docker build -t berth-manager:dev .
# The builder installs exactly scripts/setup.sh's build_debs (e2e.test_container_image checks it).
FROM debian:bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libboost1.81-dev libboost-system1.81-dev libboost-program-options1.81-dev \
      libssl-dev rapidjson-dev libyaml-cpp-dev libyaml-dev prometheus-cpp-dev \
      libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libre2-dev libabsl-dev libxxhash-dev \
      googletest libgtest-dev libgmock-dev libbenchmark-dev ca-certificates python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B build -G Ninja >/dev/null && ninja -C build berth-manager \
 && scripts/image-rootfs.sh build/bin/berth-manager /rootfs

# Distroless-style: nothing but the binary, its libraries, CA certificates and the nonroot user.
FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/berth-manager"]
