// Preloaded into a Node server under test (`node --require ./targets/servers/loopback_only.cjs ...`) that
// takes only a port and would listen on every interface (server-everything's streamableHttp mode does
// `app.listen(PORT)`): every TCP listen that names no host, or a wildcard one, binds 127.0.0.1 instead.
// The suite only ever connects over loopback, and nothing it starts may listen anywhere else.
"use strict";
const net = require("node:net");

const LOOPBACK = "127.0.0.1";
const WILDCARDS = new Set([undefined, null, "", "0.0.0.0", "::", "::0"]);
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, callback])
    if (typeof args[1] === "string" || args[1] === null) {
      if (WILDCARDS.has(args[1])) args[1] = LOOPBACK;
    } else {
      args.splice(1, 0, LOOPBACK);
    }
  } else if (first && typeof first === "object" && !("path" in first) && !("fd" in first) && !("_handle" in first)) {
    // listen({port, host, ...}[, callback])
    if (WILDCARDS.has(first.host)) args[0] = { ...first, host: LOOPBACK };
  } else if (first === undefined || typeof first === "function") {
    // listen([callback]): a random port on every interface
    args.unshift(0, LOOPBACK);
  }
  return listen.apply(this, args);
};
