package dev.baton.examples.docs;

import com.sun.net.httpserver.HttpServer;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import dev.baton.Worker;
import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleAuthenticator;
import dev.baton.console.ConsoleUser;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Set;

/** The code of docs/src/console.md, compiled. */
final class ConsoleSnippets {
    private ConsoleSnippets() {}

    /** The host's own sessions, for the example. */
    interface Sessions {
        /** The signed-in user of a session cookie, or null. */
        String userOf(String sessionCookie);
    }

    // tag::console-authenticator[]
    static ConsoleAuthenticator authenticator(Sessions sessions, Set<String> onCall) {
        return request -> {
            String user = sessions.userOf(request.cookie("SESSION"));
            if (user == null) {
                return null; // 401, nothing shown
            }
            return onCall.contains(user) ? ConsoleUser.operator(user) : ConsoleUser.reader(user);
        };
    }
    // end::console-authenticator[]

    // tag::console-mount[]
    static BatonConsole mount(
            HttpServer server, ClaimQueue<?> queue, Outbox outbox, Worker worker, ConsoleAuthenticator authenticator) {
        BatonConsole console = BatonConsole.builder()
                .queue(queue)
                .outbox(outbox)
                .worker(worker) // pause and resume it from the page
                .authenticator(authenticator)
                .operate(true) // without it the page only reads
                .build();
        server.createContext("/ops/baton/", console.httpHandler());
        return console; // close() it with the server: it stops the sampler thread
    }
    // end::console-mount[]

    static HttpServer server() throws IOException {
        return HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    }
}
