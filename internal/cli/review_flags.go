package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/certs"
)

// checkAliases refuses a flag given under both its names (--as and --user, ...).
func (o *reviewOptions) checkAliases(cmd *cobra.Command) error {
	for _, names := range [][]string{{"as", "user"}, {"as-group", "group"}, {"request-timeout", "timeout"}} {
		if err := refuseBothNames(cmd.Flags(), names...); err != nil {
			return err
		}
	}
	return nil
}

// checkValues checks the flags whose values are words.
func (o *reviewOptions) checkValues() error {
	if _, err := parseDryRun(o.dryRun); err != nil {
		return err
	}
	if _, err := fieldValidationOf(o.validate); err != nil {
		return err
	}
	if o.list && o.output == outputText {
		return errors.New("--list prints a List of -o json or yaml; give -o json or -o yaml")
	}
	if o.summary && o.output != outputText {
		return errors.New("--summary is a text output; -o json and yaml print every result")
	}
	stdin := 0
	for _, paths := range [][]string{o.files, o.webhooks, o.old, o.cluster, o.namespaces, o.crds} {
		for _, p := range paths {
			if p == "-" {
				stdin++
			}
		}
	}
	if stdin > 1 {
		return errors.New(`"-" (standard input) is given more than once: one input can read it`)
	}
	return nil
}

// parseDryRun reads --dry-run as kubectl does: "none", "server" or "client"; true and false,
// the flag's values when it was a boolean, mean server and none.
func parseDryRun(value string) (bool, error) {
	switch value {
	case "none", "false":
		return false, nil
	case "server", "true":
		return true, nil
	case "client":
		return false, errors.New("--dry-run=client: a client-side dry run sends nothing to the apiserver, so no admission runs; --dry-run=server reviews a dry-run request")
	}
	return false, fmt.Errorf(`--dry-run %q: must be "none", "server" or "client"`, value)
}

// fieldValidationOf is the fieldValidation kubectl sends for its --validate value.
func fieldValidationOf(value string) (string, error) {
	switch strings.ToLower(value) {
	case "strict", "true":
		return metav1.FieldValidationStrict, nil
	case "warn":
		return metav1.FieldValidationWarn, nil
	case "ignore", "false":
		return metav1.FieldValidationIgnore, nil
	}
	return "", fmt.Errorf(`--validate %q: must be "strict" (or "true"), "warn" or "ignore" (or "false")`, value)
}

// readCABundle reads --ca-file: CA certificates, and nothing else (never a private key).
func readCABundle(path string) ([]byte, error) {
	bundle, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	if _, err := certs.ParseCertificatesPEM(bundle); err != nil {
		return nil, fmt.Errorf("--ca-file %s: %w", path, err)
	}
	return bundle, nil
}

// inputName is how an input path is named in messages.
func inputName(path string) string {
	if path == "-" {
		return stdinName
	}
	return path
}

// describeSubresourceInput is the help text for the subresources' inputs.
func describeSubresourceInput() string {
	return strings.Join([]string{
		"--subresource scale: an autoscaling/v1 Scale, or the changed Deployment (ReplicaSet, StatefulSet,",
		"ReplicationController, custom resource) whose replicas stand for it, with the stored object as --old;",
		"--subresource eviction: a policy/v1 Eviction named after the pod; --subresource binding: a v1 Binding;",
		"--subresource status (and ephemeralcontainers, resize): the whole changed object, with --old",
	}, "\n")
}
