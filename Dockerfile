# gmtags serve for a group of players, behind their own reverse proxy (docs/hosting.md).
#
#   docker build -t gmtags .            (or: make image)
#   docker run -d -p 8787:8787 -v gmtags-data:/data \
#     -e GMTAGS_UPSTREAM=https://api.example.com/v1 -e GMTAGS_TOKEN=... gmtags
#
# Settings come from GMTAGS_* variables (every `gmtags serve` flag); none of them
# is a secret baked in here: the token and the upstream's key are given when it runs.

# A Python 3.11 image with pip and venv, Debian's layout (python3 on the PATH).
ARG PYTHON_IMAGE=python:3.11-slim

# --- build: the wheel, from the files .dockerignore lets in --------------------------------
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY grammar ./grammar
COPY clients ./clients
COPY gmtags ./gmtags
RUN python3 -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# --- the image: the wheel with the postgres extra in a virtual environment -----------------
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/gmtags/bin:$PATH
COPY --from=build /wheels /wheels
# The demo ruleset shipped in the package is the default (GMTAGS_RULESET below); its path
# inside site-packages is found here, once, and linked to a fixed name.
RUN python3 -m venv /opt/gmtags \
    && /opt/gmtags/bin/pip install --no-cache-dir --disable-pip-version-check \
        "$(ls /wheels/gmtags-*.whl)[postgres]" \
    && rm -r /wheels \
    && ln -s "$(/opt/gmtags/bin/python -c \
        'import importlib.resources as r; print(r.files("gmtags.demo") / "ruleset.json")')" \
        /opt/gmtags/demo-ruleset.json \
    && test -f /opt/gmtags/demo-ruleset.json \
    && groupadd --gid 10001 gmtags \
    && useradd --uid 10001 --gid 10001 --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin gmtags \
    && mkdir -p /data \
    && chown 10001:10001 /data

# Listening beyond loopback: `gmtags serve` refuses to start without GMTAGS_TOKEN.
ENV GMTAGS_HOST=0.0.0.0 \
    GMTAGS_PORT=8787 \
    GMTAGS_DB=/data/history.sqlite \
    GMTAGS_RULESET=/opt/gmtags/demo-ruleset.json

USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8787

# /healthz needs no token and answers on loopback; slim images have no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('GMTAGS_PORT', '8787') + '/healthz', timeout=4)"]

CMD ["gmtags", "serve"]
