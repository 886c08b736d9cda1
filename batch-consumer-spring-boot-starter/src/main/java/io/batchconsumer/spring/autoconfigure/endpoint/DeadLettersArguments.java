package io.batchconsumer.spring.autoconfigure.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Checks the arguments of a {@code deadletters} operation before Actuator maps them, so that a bad
 * request is rejected with a reason that says what was wrong and what is expected: a parameter the
 * operation does not take (Actuator would ignore it), a missing {@code ids}, a page or size that is
 * not a whole number. A rejection is an {@link InvalidEndpointRequestException} ({@code 400}); over
 * HTTP, {@link DeadLettersProblems} turns it into a problem detail.
 *
 * <p>Threading: stateless.
 */
final class DeadLettersArguments implements OperationInvokerAdvisor {

	/** The endpoint whose operations are checked. */
	static final EndpointId ENDPOINT = EndpointId.of("deadletters");

	/** What each parameter expects, as the reasons say it. */
	private static final Map<String, String> EXPECTED = Map.of("ids",
			"the ids of the dead letters as one text, separated by commas, for example {\"ids\": \"4,5\"}", "page",
			"a whole number from 0", "size", "a whole number from 1 to 1000");

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!ENDPOINT.equals(endpointId)) {
			return invoker;
		}
		return (context) -> {
			check(parameters, context.getArguments());
			return invoker.invoke(context);
		};
	}

	/**
	 * Checks the arguments of one call.
	 * @param parameters the operation's parameters, selectors included
	 * @param arguments the call's arguments by name (path, query and body)
	 * @throws InvalidEndpointRequestException naming what was wrong and what is expected
	 */
	static void check(OperationParameters parameters, Map<String, Object> arguments) {
		List<String> unknown = new ArrayList<>(arguments.keySet());
		unknown.removeIf((name) -> parameters.stream().anyMatch((parameter) -> parameter.getName().equals(name)));
		if (!unknown.isEmpty()) {
			throw invalid("Unknown parameter " + quoted(unknown) + "; " + takes(parameters));
		}
		for (OperationParameter parameter : parameters) {
			Object value = arguments.get(parameter.getName());
			String expected = EXPECTED.getOrDefault(parameter.getName(), parameter.getType().getSimpleName());
			if (value == null && parameter.isMandatory()) {
				throw invalid("Missing '" + parameter.getName() + "': give " + expected);
			}
			if (value instanceof String text && parameter.getType() == Integer.class && !isWholeNumber(text)) {
				throw invalid("'" + parameter.getName() + "' must be " + expected + " but was '" + text + "'");
			}
		}
	}

	private static String takes(OperationParameters parameters) {
		List<String> named = parameters.stream()
			.filter((parameter) -> parameter.getAnnotation(Selector.class) == null)
			.map(OperationParameter::getName)
			.toList();
		return named.isEmpty() ? "this operation takes none" : "this operation takes " + quoted(named);
	}

	private static String quoted(List<String> names) {
		return names.stream().map((name) -> "'" + name + "'").collect(Collectors.joining(", "));
	}

	private static boolean isWholeNumber(String text) {
		try {
			Integer.parseInt(text.trim());
			return true;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	private static InvalidEndpointRequestException invalid(String reason) {
		return new InvalidEndpointRequestException(reason, reason);
	}

}
