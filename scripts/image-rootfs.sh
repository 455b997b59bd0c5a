#!/usr/bin/env bash
# Lays out berth-manager's container root filesystem in STAGE_DIR (which must not exist): the stripped
# binary, exactly the shared libraries ldd names at the paths it found them (dereferenced) and the
# loader, CA certificates, /etc/passwd and /etc/group with nonroot (65532), a 1777 /tmp.
# scripts/image.sh (buildah) and the Dockerfile both use it, so the two images hold the same files.
#   scripts/image-rootfs.sh BINARY STAGE_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BINARY STAGE_DIR" >&2; exit 2; }
binary="$1" stage="$2"
[ -x "$binary" ] || { echo "image-rootfs: $binary is not an executable" >&2; exit 1; }
[ ! -e "$stage" ] || { echo "image-rootfs: $stage exists" >&2; exit 1; }
mkdir -p "$stage/usr/local/bin" "$stage/etc/ssl/certs" "$stage/tmp"
chmod 0755 "$stage"
chmod 1777 "$stage/tmp"
strip --strip-unneeded -o "$stage/usr/local/bin/berth-manager" "$binary"

# A library ldd cannot find fails here rather than in the container.
ldd_out="$(ldd "$binary")"
if grep -q "not found" <<<"$ldd_out"; then
  echo "image-rootfs: unresolved libraries:" >&2; grep "not found" <<<"$ldd_out" >&2; exit 1
fi
while read -r lib; do
  mkdir -p "$stage$(dirname "$lib")"
  cp -L "$lib" "$stage$lib"
done < <(awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$ldd_out" | sort -u)

cp -L /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > "$stage/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$stage/etc/group"
printf 'hosts: files dns\n' > "$stage/etc/nsswitch.conf"
# Root owns everything; the user reads the libraries and runs the binary and the loader.
find "$stage" -type d -exec chmod 0755 {} + && chmod 1777 "$stage/tmp"
find "$stage" -type f -exec chmod 0644 {} +
chmod 0755 "$stage/usr/local/bin/berth-manager" "$stage"/lib64/ld-linux-*
