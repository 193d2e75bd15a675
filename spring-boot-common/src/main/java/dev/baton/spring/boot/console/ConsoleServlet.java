package dev.baton.spring.boot.console;

import dev.baton.console.BatonConsole;
import dev.baton.console.ConsoleRequest;
import dev.baton.console.ConsoleResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The console as a servlet mapped to {@code path/*}. */
final class ConsoleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient BatonConsole console;

    ConsoleServlet(BatonConsole console) {
        this.console = console;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String base = req.getContextPath() + req.getServletPath() + "/";
        String info = req.getPathInfo();
        if (info == null) {
            resp.sendRedirect(base);
            return;
        }
        Map<String, List<String>> headers = new HashMap<>();
        for (String name : Collections.list(req.getHeaderNames())) {
            headers.put(name, new ArrayList<>(Collections.list(req.getHeaders(name))));
        }
        Map<String, String> params = new HashMap<>();
        req.getParameterMap().forEach((k, v) -> {
            if (v.length > 0 && v[0] != null) {
                params.put(k, v[0]);
            }
        });
        ConsoleResponse r = console.handle(
                new ConsoleRequest(req.getMethod(), base, info.substring(1), headers, params, req, req.isSecure()));
        resp.setStatus(r.status());
        r.headers().forEach(resp::setHeader);
        byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
        resp.setContentLength(body.length);
        if (!"HEAD".equals(req.getMethod())) {
            resp.getOutputStream().write(body);
        }
    }
}
