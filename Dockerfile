# Build: the same `swift build -c release` the README uses, with the Swift runtime linked in
# statically so the runtime image needs no Swift toolchain. No `# syntax=` line: the builder's
# built-in frontend reads this file, so a build pulls no image but the two bases below.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev zlib1g-dev libsqlite3-dev libpq-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
# SwiftPM checks every target's folder, the test targets' too, though only tandem is built.
COPY Tests ./Tests
COPY Sources ./Sources
RUN swift build -c release --product tandem --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/tandem" /out/tandem

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libssl3 zlib1g libsqlite3-0 libpq5 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin tandem \
    && mkdir -p /data && chown tandem:tandem /data
COPY --from=build /out/tandem /usr/local/bin/tandem
COPY Public /app/Public
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8080
ENV TANDEM_HOST=:: TANDEM_PORT=8080 TANDEM_DATA=/data TANDEM_PUBLIC=/app/Public
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 CMD ["tandem", "healthcheck"]
STOPSIGNAL SIGTERM
# Exec form: tandem is PID 1 and receives SIGTERM itself for a graceful shutdown.
ENTRYPOINT ["tandem"]
CMD ["serve"]
