// A plain promise ring (written for ringbench issue 27; not ringbench code).
//
// n async functions in a ring, each awaiting its own mailbox: an array of messages that arrived
// while its owner was busy, and the resolve function of the Promise its owner awaits. One token
// carrying n*m, decremented at every hop; the process that receives 1 ends the run. n*m hops in all.
//
// usage: node ring.mjs N M
class Mailbox {
  constructor() {
    this.messages = [];
    this.resolve = null;
  }

  send(message) {
    if (this.resolve) {
      const resolve = this.resolve;
      this.resolve = null;
      resolve(message);
    } else {
      this.messages.push(message);
    }
  }

  receive() {
    if (this.messages.length > 0) return Promise.resolve(this.messages.shift());
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}

async function relay(inbox, next, done) {
  for (;;) {
    const v = await inbox.receive();
    if (v === 1) {
      done();
      return;
    }
    next.send(v - 1);
  }
}

const n = Number(process.argv[2]);
const m = Number(process.argv[3]);
const boxes = Array.from({ length: n }, () => new Mailbox());
const finished = new Promise((resolve) => {
  for (let i = 0; i < n; i++) relay(boxes[i], boxes[(i + 1) % n], resolve);
});
boxes[0].send(n * m);
await finished;
console.log('hops:', n * m);
