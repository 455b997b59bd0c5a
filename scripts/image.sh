#!/usr/bin/env bash
# Builds berth-manager's container image without a daemon, with Debian's buildah: FROM scratch, the
# stripped release binary, exactly the shared libraries ldd names (and the loader), CA certificates
# and /etc/passwd with user 65532; runs as 65532:65532. Writes an OCI archive and prints its digest.
#
#   scripts/image.sh [OUT_DIR]          default OUT_DIR: build/image
# Environment: BERTH_IMAGE (default ghcr.io/berth/berth-manager:<the chart's appVersion>, the chart's
# default image), BERTH_IMAGE_BINARY (a built berth-manager; default: build it into BERTH_BUILD_DIR).
# Output: OUT_DIR/berth-manager.oci.tar, OUT_DIR/digest, OUT_DIR/rootfs-bytes (the unpacked size).
# Push it with: skopeo copy oci-archive:OUT_DIR/berth-manager.oci.tar docker://<registry>/berth-manager:<tag>
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BERTH_BUILD_DIR:-$root/build}"
out="$(mkdir -p "${1:-$build/image}" && cd "${1:-$build/image}" && pwd)"
version="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$root/charts/berth/Chart.yaml")"
image="${BERTH_IMAGE:-ghcr.io/berth/berth-manager:$version}"
# No registry is reachable here and none is needed: the image starts empty.
command -v buildah >/dev/null || { echo "image: buildah is not installed (scripts/setup.sh installs it)" >&2; exit 1; }

binary="${BERTH_IMAGE_BINARY:-}"
if [ -z "$binary" ]; then
  BERTH_TARGETS=berth-manager "$root/scripts/build.sh"
  binary="$build/bin/berth-manager"
fi
[ -x "$binary" ] || { echo "image: $binary is not an executable" >&2; exit 1; }

work="$(mktemp -d "$out/work.XXXXXX")"
# buildah's vfs store holds plain directories (no mounts), so removing it is enough.
trap 'rm -rf "$work"' EXIT
stage="$work/rootfs"
"$root/scripts/image-rootfs.sh" "$binary" "$stage"
du -sb --apparent-size "$stage" | cut -f1 > "$out/rootfs-bytes"

bah=(buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs)
ctr="$("${bah[@]}" from scratch)"
"${bah[@]}" copy --quiet "$ctr" "$stage/" /
"${bah[@]}" config --user 65532:65532 --entrypoint '["/usr/local/bin/berth-manager"]' --cmd '' \
  --workingdir / --os linux --arch amd64 \
  --label org.opencontainers.image.title=berth-manager \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.description="berth-manager: capacity reservations for Kubernetes" "$ctr"
# --timestamp 0: the same inputs give the same digest.
"${bah[@]}" commit --quiet --format oci --timestamp 0 --rm "$ctr" "$image" >/dev/null
rm -f "$out/berth-manager.oci.tar"
"${bah[@]}" push --quiet --digestfile "$out/digest" "$image" "oci-archive:$out/berth-manager.oci.tar:$image"
echo "image: $image"
echo "image: archive $out/berth-manager.oci.tar ($(stat -c %s "$out/berth-manager.oci.tar") bytes, unpacked rootfs $(cat "$out/rootfs-bytes") bytes)"
echo "image: digest $(cat "$out/digest")"
