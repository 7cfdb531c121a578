# Lazuli in a container, with Azurite's image conventions: the same ports,
# a /data volume, and `azurite`, `azurite-blob`, `azurite-queue` and
# `azurite-table` commands taking Azurite's flags, so that a compose file or
# Testcontainers' Azurite module runs it by swapping the image name.
#
#   docker build -t lazuli .
#   docker run -p 10000-10003:10000-10003 -p 10009:10009 -v lazuli-data:/data lazuli

# Go 1.27.3: see README (the standard library fixes govulncheck asks for).
FROM golang:1.27.3 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# A static binary (pure Go: the SQLite engine is modernc.org/sqlite), without
# the bench command's Azure SDK driver.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/lazuli ./cmd/lazuli \
 && cd /out && for n in azurite azurite-blob azurite-queue azurite-table; do ln -s lazuli "$n"; done \
 && mkdir -p /data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
COPY --from=build --chown=nonroot:nonroot /data /data
WORKDIR /data
VOLUME /data
# Blob, Queue, Table, File; the admin listener (console, metrics, test
# control); SMB.
EXPOSE 10000 10001 10002 10003 10009 10445
# As Azurite's image: no entrypoint (so `command: azurite-blob ...` works),
# every service on all interfaces, data in /data. The admin listener then
# answers callers from outside the container only with LAZULI_ADMIN_TOKEN
# (or --adminToken).
CMD ["lazuli", "--location", "/data", "--blobHost", "0.0.0.0", "--queueHost", "0.0.0.0", "--tableHost", "0.0.0.0", "--fileHost", "0.0.0.0", "--smbHost", "0.0.0.0", "--adminHost", "0.0.0.0"]
