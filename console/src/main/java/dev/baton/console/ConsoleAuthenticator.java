package dev.baton.console;

import org.jspecify.annotations.Nullable;

/**
 * The host's word on who sent a request: the console has no users of its own. Called once per request, on the
 * server's request thread; must be thread-safe. An exception is logged and answered like a null (401).
 *
 * <pre>{@code
 * ConsoleAuthenticator auth = request -> {
 *     String user = mySessions.userOf(request.header("cookie"));
 *     if (user == null) return null;                      // 401
 *     return admins.contains(user) ? ConsoleUser.operator(user) : ConsoleUser.reader(user);
 * };
 * }</pre>
 */
@FunctionalInterface
public interface ConsoleAuthenticator {
    /**
     * The user who sent {@code request}, or null if it is not authenticated (the console answers 401 and shows
     * nothing).
     */
    @Nullable
    ConsoleUser authenticate(ConsoleRequest request);

    /**
     * The {@code WWW-Authenticate} header sent with a 401 (for example {@code Basic realm="ops"}), or null (the
     * default) for none.
     */
    default @Nullable String challenge() {
        return null;
    }
}
