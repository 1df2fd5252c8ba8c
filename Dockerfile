# The function image. NODE_IMAGE is the base of every stage, so a mirror or a locally assembled base
# can stand in: docker build --build-arg NODE_IMAGE=registry.example/node:22-alpine .
ARG NODE_IMAGE=node:22-alpine

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/code-cache.mjs ./scripts/
COPY src ./src
RUN node scripts/build.mjs

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /src/dist/main.js /src/dist/function.js /src/dist/function.js.cache /src/dist/update.js /src/dist/update.js.cache /app/
# kpt runs functions as nobody; Porch uses the image's user. Both are non-root.
USER 65534:65534
# Porch runs the ENTRYPOINT and ignores CMD, so the whole command is here.
ENTRYPOINT ["node", "/app/main.js"]
