package dev.baton.testservers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP forwarder on a free port of 127.0.0.1, as a virtual IP or a load balancer in front of a database writer: each
 * new client connection is piped to the current target port. {@link #flip(int)} changes the target for new
 * connections only; connections already open stay piped to the old target, as they do behind a proxy that does not
 * cut them on a failover. Two threads per connection; {@link #close()} ends everything.
 */
public final class TcpProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile int target;
    private volatile boolean closed;

    private TcpProxy(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    /** Starts a proxy to {@code 127.0.0.1:targetPort}. */
    public static TcpProxy start(int targetPort) {
        try {
            ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            TcpProxy proxy = new TcpProxy(s, targetPort);
            Thread accept = new Thread(proxy::accept, "baton-tcpproxy-" + s.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            return proxy;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a TCP proxy: " + e, e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** New connections go to {@code 127.0.0.1:targetPort} from now on; open ones keep their old target. */
    public void flip(int targetPort) {
        this.target = targetPort;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("TCP proxy on {} stopped accepting: {}", port(), e.toString());
                }
                return;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 3_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue; // the client sees its connection closed, as with a target that is down
            }
            sockets.add(client);
            sockets.add(upstream);
            pipe(client, upstream);
            pipe(upstream, client);
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed or reset: close both, as the proxy's peer would see it
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        sockets.remove(from);
                        sockets.remove(to);
                    }
                },
                "baton-tcpproxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    /** Stops accepting and closes every open connection. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        sockets.forEach(TcpProxy::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
