# admit: a static binary on distroless, running as an unprivileged user.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/admit ./cmd/admit

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/admit /usr/local/bin/admit
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/admit"]
