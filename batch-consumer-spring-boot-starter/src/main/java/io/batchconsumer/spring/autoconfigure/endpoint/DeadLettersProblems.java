package io.batchconsumer.spring.autoconfigure.endpoint;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a bad request to the {@code deadletters} endpoint over Spring MVC with an RFC 9457
 * problem detail ({@code application/problem+json}: {@code type}, {@code title}, {@code status},
 * {@code detail}, {@code instance}) whose {@code detail} says what was wrong and what is expected,
 * whatever the application's {@code server.error.*} settings. Without it Actuator's {@code 400}
 * goes to the error page, which by default leaves the reason out. Other endpoints and other
 * statuses are left to the next resolver.
 *
 * <p>Threading: stateless; the endpoint path is read on each call.
 */
final class DeadLettersProblems implements HandlerExceptionResolver, Ordered {

	/** What a body is expected to be. */
	static final String BODY_EXPECTED = "expected a JSON object whose values are text: 'ids' is the ids of the "
			+ "dead letters as one text, separated by commas, for example {\"ids\": \"4,5\"}";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final Supplier<@Nullable String> endpointPath;

	/**
	 * Creates the resolver.
	 * @param endpointPath the path of the {@code deadletters} endpoint (such as
	 *        {@code /actuator/deadletters}), or {@code null} when it is not exposed over HTTP
	 */
	DeadLettersProblems(Supplier<@Nullable String> endpointPath) {
		this.endpointPath = endpointPath;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 10;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		String detail = detail(ex);
		if (detail == null || !isEndpointRequest(request)) {
			return null;
		}
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "about:blank");
		problem.put("title", HttpStatus.BAD_REQUEST.getReasonPhrase());
		problem.put("status", HttpStatus.BAD_REQUEST.value());
		problem.put("detail", detail);
		problem.put("instance", request.getRequestURI());
		try {
			response.setStatus(HttpStatus.BAD_REQUEST.value());
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("UTF-8");
			response.getWriter().write(JSON.writeValueAsString(problem));
			return new ModelAndView();
		}
		catch (IOException writeFailed) {
			return null;
		}
	}

	/** The detail of a bad request, or {@code null} when the exception is not one. */
	private static @Nullable String detail(Exception ex) {
		if (ex instanceof HttpMessageNotReadableException unreadable) {
			String field = field(unreadable.getMostSpecificCause());
			return ((field != null) ? "'" + field + "' must be text, not an array or an object" : "Unreadable body")
					+ "; " + BODY_EXPECTED;
		}
		if (ex instanceof ResponseStatusException status && status.getStatusCode().value() == 400) {
			return (status.getReason() != null) ? status.getReason() : HttpStatus.BAD_REQUEST.getReasonPhrase();
		}
		return null;
	}

	/** The body field a JSON mapping failure is about, if it says. */
	private static @Nullable String field(Throwable cause) {
		if (cause instanceof JacksonException json) {
			return json.getPath().stream().map(JacksonException.Reference::getPropertyName)
				.filter((name) -> name != null)
				.findFirst()
				.orElse(null);
		}
		return null;
	}

	private boolean isEndpointRequest(HttpServletRequest request) {
		String path = this.endpointPath.get();
		Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
		return path != null && pattern != null && (pattern.toString().equals(path)
				|| pattern.toString().startsWith(path + "/"));
	}

}
