/**
 * An operations console for Baton's queues and outbox: {@link dev.baton.console.BatonConsole}, mountable on the JDK
 * {@code HttpServer}, with the host's {@link dev.baton.console.ConsoleAuthenticator}.
 */
@NullMarked
package dev.baton.console;

import org.jspecify.annotations.NullMarked;
